/** The `council_review` and `council_verdict` answers, built from the anonymized answers they were shown. */
import type { RequestContext } from '../context.ts';

const labelsOf = (ctx: RequestContext) => Object.keys(ctx.answers ?? {}).sort();
const firstSentence = (text: string) => (text.split(/(?<=[.!?])\s/)[0] ?? text).slice(0, 160);

export function councilReviewAnswer(ctx: RequestContext) {
  const answers = ctx.answers ?? {};
  // Assessed in the order shown, each on its own (no other label named), then ranked from them.
  const assessments = Object.keys(answers).map((label) => ({
    label,
    critique: answers[label]
      ? `${answers[label]!.length} characters; addresses the question: ${firstSentence(answers[label]!)}`
      : 'Empty: it does not answer the question.',
  }));
  // Longer answers rank higher (ties by label), so the ranking is deterministic yet depends on the input.
  const ranking = labelsOf(ctx).sort(
    (a, b) => (answers[b]?.length ?? 0) - (answers[a]?.length ?? 0) || a.localeCompare(b),
  );
  return { assessments, ranking };
}

export function councilVerdictAnswer(ctx: RequestContext) {
  const answers = ctx.answers ?? {};
  const labels = labelsOf(ctx);
  const ranking = councilReviewAnswer(ctx).ranking;
  const best = ranking[0];
  const other = ranking[1];
  // Like a model that follows the chairman's prompt: labels only in the comparison, never in the answer.
  const insights = labels.map((l) => firstSentence(answers[l] ?? ''));
  const recommendation = best
    ? `Follow the strongest advice: ${firstSentence(answers[best] ?? '')}`
    : `Decide on: ${ctx.query}`;
  const nextStep = `Validate the recommendation for: ${ctx.query}`;
  const alternative = other ? firstSentence(answers[other] ?? '') : '';
  return {
    comparison: ranking.length
      ? `${ranking.join(' > ')} by depth of reasoning; ${best} gives the most complete case.`
      : 'No answers to compare.',
    recommendation,
    keyInsights: insights.length ? insights : [`The question: ${ctx.query}`],
    blindSpots: ['Costs and risks were not measured (scripted council).'],
    consensus:
      labels.length > 1 ? `${labels.length} advisors answered the question.` : 'Too few advisors for a consensus.',
    dissent:
      labels.length > 1
        ? `One advisor puts the emphasis elsewhere: ${firstSentence(answers[labels.at(-1)!] ?? '')}`
        : '',
    nextStep,
    confidence: labels.length ? 0.7 : 0.3,
    confidenceReason: labels.length
      ? 'The costs and risks were not measured.'
      : 'No advisor answered, so nothing supports it.',
    answer: [
      recommendation,
      ...(alternative
        ? [`The other option worth weighing: ${alternative} It is the better choice if that matters more to you.`]
        : []),
      'The main risk: costs and risks were not measured here, so check them before you commit.',
      `Start here: ${nextStep}`,
      'What would change this: a measured cost or risk that outweighs the benefit. I would hold it loosely until then.',
    ].join('\n\n'),
  };
}
