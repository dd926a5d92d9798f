/**
 * Decisions are memory too (issue 14 §4): the caller's earlier council decision closest to a new
 * question, found with the registry's own text matching (the Jaccard similarity of query patterns
 * that finds proven teams), so the router and the council see the earlier verdict as context. Only
 * the caller's own decisions are searched. A match is context, never a reuse: a negated or reversed
 * question still matches, and the event says how its shape differs (knowledge/query-shape.ts).
 */
import { jaccard, queryPattern } from '../../knowledge/words.ts';
import { queryShape, shapeDifference } from '../../knowledge/query-shape.ts';
import type { DecisionRecord } from '../../knowledge/store.ts';
import { block } from '../prompting/prompts.ts';
import type { EngineContext, FoundDecision, RunState } from '../run/state.ts';

/** Lower than team reuse's 0.8: context may be looser than reusing a plan, but must share most words. */
export const DECISION_MATCH_THRESHOLD = 0.5;
/** How many of the caller's most recent decisions are compared. */
const DECISION_WINDOW = 200;

export type { FoundDecision } from '../run/state.ts';

/** The closest earlier decision for `question`, looked up once per question and run. */
export function earlierDecision(
  run: RunState,
  ctx: EngineContext,
  question: string,
): Promise<FoundDecision | undefined> {
  let found = run.earlierDecisions.get(question);
  if (!found) {
    found = lookUp(ctx, run.callerId, question).catch((err: unknown) => {
      ctx.logger.warn('earlier decision lookup failed; deciding without it', {
        runId: run.id,
        error: (err as Error).message,
      });
      return undefined;
    });
    run.earlierDecisions.set(question, found);
  }
  return found;
}

async function lookUp(ctx: EngineContext, callerId: string, question: string): Promise<FoundDecision | undefined> {
  const pattern = queryPattern(question);
  let best: { decision: DecisionRecord; similarity: number } | undefined;
  for (const decision of await ctx.store.listDecisions(DECISION_WINDOW, { callerId })) {
    const similarity = jaccard(pattern, queryPattern(decision.question));
    if (similarity >= DECISION_MATCH_THRESHOLD && (!best || similarity > best.similarity))
      best = { decision, similarity };
  }
  if (!best) return undefined;
  const { decision, similarity } = best;
  const difference = shapeDifference(queryShape(decision.question), queryShape(question));
  return {
    decision,
    match: {
      decisionId: decision.id,
      runId: decision.runId,
      question: decision.question,
      similarity,
      ...(difference ? { difference } : {}),
    },
  };
}

/** The earlier verdict as a prompt block (its question, and that it may not answer this one). */
export function earlierDecisionBlock({ decision, match }: FoundDecision): string {
  const { recommendation, nextStep, confidence, dissent } = decision.verdict;
  return block(
    'earlier_decision',
    JSON.stringify({
      note: match.difference
        ? `An earlier, similar question was decided, but it differs: ${match.difference}. Do not assume the same answer.`
        : 'An earlier, similar question was decided. Build on it or say why this differs.',
      question: decision.question,
      decidedAt: decision.decidedAt,
      recommendation,
      nextStep,
      dissent,
      confidence,
    }),
  );
}
