/**
 * The council: five advisors with distinct thinking styles answer in parallel; their answers are
 * shuffled behind labels A–E so three reviewers rank and critique them blind; a chairman turns it all
 * into a typed CouncilVerdict, stored as a Decision. Used by the council node and as a plan step.
 */
import { randomUUID } from 'node:crypto';
import type { CouncilVerdict, UsageTotals } from '../run/events.ts';
import { block } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { CouncilReviewSchema, CouncilVerdictSchema } from '../prompting/schemas.ts';
import { emit, type EngineContext, type RunState } from '../run/state.ts';
import { addUsage } from '../spending/usage.ts';
import { earlierDecision, earlierDecisionBlock } from '../learning/earlier-decision.ts';
import type { ModelUsage } from '../../llm/types.ts';

export const ADVISORS = [
  {
    id: 'contrarian',
    style:
      'You are the Contrarian. Look for what is wrong with the answer most people would give to this question, the risks, and the case against it.',
  },
  {
    id: 'first-principles',
    style:
      'You are the First-Principles thinker. Strip the question to its fundamentals and rebuild the answer from them.',
  },
  {
    id: 'expansionist',
    style:
      'You are the Expansionist. Look for the bigger opportunity and the upside, and for options beyond the ones the question names.',
  },
  {
    id: 'outsider',
    style:
      'You are the Outsider. Answer as a sharp generalist with no stake in the status quo: question what insiders take for granted, in plain words, and still give usable advice.',
  },
  {
    id: 'executor',
    style:
      'You are the Executor. Focus on what can actually be done next: the first steps, the roles or skills they need, and what they cost, stating what you assume about the team when the question does not say.',
  },
] as const;

const ADVISOR_TASK = `You are one of five advisors on a council, each given a different angle (contrarian, first principles,
expansionist, outsider, executor); take yours, and keep your recommendation honest. Three reviewers then rank the five answers
and a chairman writes the verdict the user reads. Answer the question in the parley:query block in about 150 to 350 words: your
recommendation, your reasons, and what would change your mind. Where the question leaves out facts you need, say what you assume.`;

/** Said only when the caller's earlier decision on a close question is given (learning/earlier-decision.ts). */
const EARLIER_NOTE = ` The parley:earlier_decision block is the caller's decision on a similar earlier question: build on it or say why this differs.`;

const REVIEWERS = 3;
const LABELS = ['A', 'B', 'C', 'D', 'E'];

/** Explicit criteria, so reviewers rank on substance rather than on length or position. */
const REVIEWER_SYSTEM = (
  n: number,
) => `You are council reviewer ${n} of ${REVIEWERS}. Advisors answered the question in the parley:query block;
their answers are in the parley:answers block, keyed by labels A to E. The labels are arbitrary and the order you see them in is
not a ranking (each reviewer sees its own order). Each advisor wrote from an assigned angle (the contrarian, first principles,
the expansionist, an outsider, the executor): judge how useful each answer is to the person who asked, not how closely it
sticks to an angle or to the majority. Rank the answers on these criteria, most important first:
1. Correct: no false statements or unsound reasoning.
2. Answers the actual question and its constraints, not a neighbouring one.
3. Weighs the real trade-offs and risks.
4. Concrete and actionable: says what to do, and when it would be wrong.
Length is not a merit: a short answer that meets the criteria beats a long one that does not.
Answer with:
- "ranking": every label (the bare letter, e.g. "A") exactly once, best first: all five, no ties, no label left out or repeated.
- "critique": a few sentences on what makes the best answers better and what the weaker ones miss; name answers by label.`;

/** Every verdict field explained; the labels stay inside the council. */
const CHAIRMAN_SYSTEM = `You are the council chairman. Five advisors answered the question in the parley:query block (the parley:answers block, keyed by
labels A to E) and three reviewers ranked them (the parley:reviews block: each reviewer's ranking, best first, and critique).
Each advisor wrote from an assigned angle (the contrarian, first principles, the expansionist, an outsider, the executor), so
a difference of emphasis between them is not by itself a disagreement. The reviewers are the same model as the advisors: their
agreement is not independent evidence. Write the verdict for the person who asked: it is the answer they read, each field a
section of it. The labels A to E and the reviewer numbers are internal to the council: never
mention them, or "answer C", "reviewer 2", "ranked first"; state the ideas themselves.
Fields:
- "recommendation": what to do, in a few sentences, with the main reason. When the question asks to compare options, give
  the comparison here too (the main differences that matter for the choice).
- "keyInsights": the most useful points made, one per item.
- "blindSpots": what the advisors missed or assumed; [] if none.
- "consensus": what the advisors agree on.
- "dissent": where they disagree and why it matters; "" (empty) when they agree.
- "nextStep": the first concrete action.
- "confidence": 0..1, how sure you are that the recommendation is right given what is known (shown to the user as a
  number): lower when the advisors split on substance or when facts the answer depends on are missing from the question.`;

/** Reviewer i's order of the labels: a different rotation each, so every answer sits at a different position for each reviewer. */
export function reviewerOrder(i: number): string[] {
  const offset = (i * 2) % LABELS.length;
  return [...LABELS.slice(offset), ...LABELS.slice(0, offset)];
}

export interface CouncilResult {
  verdict: CouncilVerdict;
  /** The verdict as readable text (the run's answer in council mode, the step output as a plan step). */
  text: string;
  usage: UsageTotals;
  decisionId: string;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function runCouncil(
  run: RunState,
  ctx: EngineContext,
  question: string,
  signal: AbortSignal,
  usage: UsageTotals,
): Promise<CouncilResult> {
  const tally = (u: ModelUsage) => {
    usage.modelCalls++;
    addUsage(usage, u);
  };
  const earlier = await earlierDecision(run, ctx, question);
  // The caller's earlier verdict on a close question (learning/earlier-decision.ts) is context for advisors and chairman.
  const context = earlier ? `\n\n${earlierDecisionBlock(earlier)}` : '';
  const query = block('query', question);
  // One date for the whole council: advisors, reviewers and the chairman reason about the same day.
  const today = todayNoteOf(ctx);

  emit(run, {
    type: 'council.stage',
    stage: 'advisors',
    detail: `${ADVISORS.length} advisors are answering in parallel`,
  });
  const models =
    ctx.councilAdvisorModels?.length && !run.request.models?.council_advisor ? ctx.councilAdvisorModels : undefined;
  const answers = await Promise.all(
    ADVISORS.map(async (advisor, i) => {
      const r = await run.model.chat({
        role: 'council_advisor',
        ...(models ? { model: models[i % models.length] } : {}),
        messages: [
          { role: 'system', content: `${advisor.style} ${ADVISOR_TASK}${earlier ? EARLIER_NOTE : ''}${today}` },
          { role: 'user', content: query + context },
        ],
        signal,
      });
      tally(r.usage);
      return { advisor: advisor.id, text: r.text };
    }),
  );
  // Labels are assigned once, at random; each reviewer then sees the labelled answers in its own order.
  const order = shuffled(answers);
  const byLabel = new Map(order.map((a, i) => [LABELS[i]!, a.text]));
  const answersIn = (labels: string[]) =>
    block('answers', JSON.stringify(Object.fromEntries(labels.map((l) => [l, byLabel.get(l) ?? '']))));
  const orders = Array.from({ length: REVIEWERS }, (_, i) => reviewerOrder(i));

  emit(run, {
    type: 'council.stage',
    stage: 'reviews',
    detail: `${REVIEWERS} reviewers are ranking answers ${LABELS.join(', ')} blind, each in its own order`,
    orders,
  });
  const reviews = await Promise.all(
    orders.map(async (labels, i) => {
      const r = await run.model.structured({
        role: 'council_reviewer',
        schemaName: 'council_review',
        schema: CouncilReviewSchema,
        messages: [
          { role: 'system', content: REVIEWER_SYSTEM(i + 1) + today },
          { role: 'user', content: `${query}\n\n${answersIn(labels)}` },
        ],
        signal,
      });
      tally(r.usage);
      return r.value;
    }),
  );

  const reviewsBlock = block(
    'reviews',
    JSON.stringify(reviews.map((r, i) => ({ reviewer: i + 1, ranking: r.ranking, critique: r.critique }))),
  );
  const chair = await run.model.structured({
    role: 'council_chairman',
    schemaName: 'council_verdict',
    schema: CouncilVerdictSchema,
    messages: [
      { role: 'system', content: CHAIRMAN_SYSTEM + (earlier ? `\n${EARLIER_NOTE.trim()}` : '') + today },
      { role: 'user', content: `${query}${context}\n\n${answersIn(LABELS)}\n\n${reviewsBlock}` },
    ],
    signal,
  });
  tally(chair.usage);
  const verdict: CouncilVerdict = chair.value;
  emit(run, {
    type: 'council.stage',
    stage: 'verdict',
    detail: `confidence ${verdict.confidence.toFixed(2)}`,
    verdict,
  });

  const decisionId = randomUUID();
  try {
    await ctx.store.recordDecision({
      id: decisionId,
      runId: run.id,
      callerId: run.callerId,
      question,
      verdict,
      decidedAt: new Date(ctx.now()).toISOString(),
    });
  } catch (err) {
    ctx.logger.warn('recording the council decision failed', { runId: run.id, error: (err as Error).message });
  }
  return { verdict, text: renderVerdict(verdict), usage, decisionId };
}

/** The verdict as readable sections (the council node streams them one answer.delta each); no empty dissent line. */
export function verdictSections(v: CouncilVerdict): string[] {
  const list = (items: string[]) => items.map((i) => `- ${i}`).join('\n');
  return [
    `Recommendation: ${v.recommendation}`,
    ...(v.keyInsights.length ? [`Key insights:\n${list(v.keyInsights)}`] : []),
    ...(v.blindSpots.length ? [`Blind spots:\n${list(v.blindSpots)}`] : []),
    `Consensus: ${v.consensus}`,
    ...(v.dissent.trim() ? [`Dissent: ${v.dissent}`] : []),
    `Next step: ${v.nextStep}`,
    `Confidence: ${v.confidence.toFixed(2)}`,
  ];
}

export function renderVerdict(v: CouncilVerdict): string {
  return verdictSections(v).join('\n\n');
}
