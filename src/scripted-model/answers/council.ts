/** The `council_review` and `council_verdict` answers, built from the anonymized answers they were shown. */
import type { RequestContext } from '../context.ts';

const labelsOf = (ctx: RequestContext) => Object.keys(ctx.answers ?? {}).sort();
const firstSentence = (text: string) => (text.split(/(?<=[.!?])\s/)[0] ?? text).slice(0, 160);

export function councilReviewAnswer(ctx: RequestContext) {
  const labels = labelsOf(ctx);
  const answers = ctx.answers ?? {};
  // Longer answers rank higher (ties by label), so the ranking is deterministic yet depends on the input.
  const ranking = [...labels].sort(
    (a, b) => (answers[b]?.length ?? 0) - (answers[a]?.length ?? 0) || a.localeCompare(b),
  );
  const critiques = Object.fromEntries(
    labels.map((l) => [
      l,
      `Answer ${l}: ${answers[l]?.length ?? 0} characters; ${answers[l] ? 'addresses the question' : 'empty'}.`,
    ]),
  );
  return {
    ranking,
    critique: ranking.length ? `Ranked ${ranking.join(' > ')} by depth of reasoning.` : 'No answers to review.',
    critiques,
    reviews: labels.map((label) => ({ label, rank: ranking.indexOf(label) + 1, critique: critiques[label] })),
  };
}

export function councilVerdictAnswer(ctx: RequestContext) {
  const answers = ctx.answers ?? {};
  const labels = labelsOf(ctx);
  const best = councilReviewAnswer(ctx).ranking[0];
  // Like a model that follows the chairman's prompt: the labels stay inside the council.
  const insights = labels.map((l) => firstSentence(answers[l] ?? ''));
  return {
    recommendation: best
      ? `Follow the strongest advice: ${firstSentence(answers[best] ?? '')}`
      : `Decide on: ${ctx.query}`,
    keyInsights: insights.length ? insights : [`The question: ${ctx.query}`],
    blindSpots: ['Costs and risks were not measured (scripted council).'],
    consensus:
      labels.length > 1 ? `${labels.length} advisors answered the question.` : 'Too few advisors for a consensus.',
    dissent:
      labels.length > 1
        ? `One advisor puts the emphasis elsewhere: ${firstSentence(answers[labels.at(-1)!] ?? '')}`
        : '',
    nextStep: `Validate the recommendation for: ${ctx.query}`,
    confidence: labels.length ? 0.7 : 0.3,
  };
}
