/**
 * `parley eval --versus direct` (docs/evals.md, "The graph against one call"): after a case's graph run,
 * the same question is put to the same model in one bare call — the thread's earlier turns as the user
 * saw them, then the query; no system prompt, no router, no tools, nothing Parley adds — and the pairwise
 * judge compares the two answers blind, in both orders (graph as A, then direct as A). The graph wins
 * only when both orders prefer it, loses only when both prefer the direct answer; anything else, the
 * orders disagreeing included, is a tie: a judge's preference for a position cancels out.
 */
import type { ChatMessage, ModelClient, ModelUsage } from '../llm/types.ts';
import { judgePair, type PairInput } from './pairwise-judge.ts';

/** What some model calls spent; costUsd null when a model has no price. */
export interface CallsUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export type VersusResult = 'win' | 'tie' | 'loss';
/** Which side one order's verdict chose, once the labels are mapped back. */
export type Preference = 'graph' | 'direct' | 'tie';

export interface OrderVerdict {
  /** The label the graph's answer had in this order. */
  graphAs: 'A' | 'B';
  /** The judge's answer, as it gave it (labels), or null when the call failed. */
  winner: 'A' | 'B' | 'tie' | null;
  pick: Preference | null;
  reason: string;
  comparison?: string;
}

export interface VersusOutcome {
  /** The graph's result against the direct call; absent when the comparison could not be made (`error`). */
  result?: VersusResult;
  /** In words how the result was reached (or why there is none). */
  detail: string;
  /** Graph as A first, then direct as A. */
  orders: OrderVerdict[];
  graphAnswer: string;
  direct: { answer: string; usage: CallsUsage; error?: string };
  /** The pairwise judge's calls (both orders). */
  judgeUsage: CallsUsage;
  error?: string;
}

export interface VersusInput {
  query: string;
  /** The thread's earlier turns as the graph answered them (the conversation both sides continue). */
  earlier: { user: string; answer: string }[];
  graphAnswer: string;
  criteria: string[];
  runId: string;
  today: string;
}

export const noUsage = (): CallsUsage => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** Adds one call's usage (none for a failed call, which still counts as a call). */
export function addCall(total: CallsUsage, usage?: ModelUsage): void {
  total.calls += 1;
  if (!usage) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.costUsd = total.costUsd === null || usage.costUsd === null ? null : total.costUsd + usage.costUsd;
}

/** The bare call: earlier turns and the query as chat messages, through the default role (what Parley's own direct route answers with). */
export function directMessages(earlier: VersusInput['earlier'], query: string): ChatMessage[] {
  return [
    ...earlier.flatMap((t): ChatMessage[] => [
      { role: 'user', content: t.user },
      { role: 'assistant', content: t.answer },
    ]),
    { role: 'user', content: query },
  ];
}

/** Both orders' picks as one result: agreement decides, disagreement is a tie. */
export function combineOrders(first: Preference, second: Preference): { result: VersusResult; detail: string } {
  if (first === second)
    return first === 'graph'
      ? { result: 'win', detail: 'both orders preferred the graph' }
      : first === 'direct'
        ? { result: 'loss', detail: 'both orders preferred the direct call' }
        : { result: 'tie', detail: 'both orders called it a tie' };
  return { result: 'tie', detail: `the orders disagreed (graph as A: ${first}; direct as A: ${second}): a tie` };
}

const pickOf = (winner: 'A' | 'B' | 'tie', graphAs: 'A' | 'B'): Preference =>
  winner === 'tie' ? 'tie' : winner === graphAs ? 'graph' : 'direct';

export async function versusDirect(model: ModelClient, input: VersusInput): Promise<VersusOutcome> {
  const directUsage = noUsage();
  const judgeUsage = noUsage();
  const base = { graphAnswer: input.graphAnswer, judgeUsage };
  let answer: string;
  try {
    const reply = await model.chat({ role: 'default', messages: directMessages(input.earlier, input.query) });
    addCall(directUsage, reply.usage);
    answer = reply.text;
  } catch (err) {
    addCall(directUsage);
    const error = `the direct call failed: ${(err as Error).message}`;
    return { ...base, detail: error, orders: [], direct: { answer: '', usage: directUsage, error }, error };
  }
  const direct = { answer, usage: directUsage };
  const pair: Omit<PairInput, 'answerA' | 'answerB'> = {
    query: input.query,
    ...(input.earlier.length ? { earlierTurns: input.earlier.map((t) => t.user) } : {}),
    ...(input.criteria.length ? { criteria: input.criteria } : {}),
    runId: input.runId,
    today: input.today,
  };
  const judgeIn = async (graphAs: 'A' | 'B'): Promise<OrderVerdict> => {
    const [a, b] = graphAs === 'A' ? [input.graphAnswer, answer] : [answer, input.graphAnswer];
    try {
      const v = await judgePair(model, { ...pair, answerA: a, answerB: b });
      addCall(judgeUsage, v.usage);
      return { graphAs, winner: v.winner, pick: pickOf(v.winner, graphAs), reason: v.reason, comparison: v.comparison };
    } catch (err) {
      addCall(judgeUsage);
      return { graphAs, winner: null, pick: null, reason: `the judge call failed: ${(err as Error).message}` };
    }
  };
  const orders = await Promise.all([judgeIn('A'), judgeIn('B')]);
  const [first, second] = orders as [OrderVerdict, OrderVerdict];
  if (first.pick === null || second.pick === null) {
    // One order alone cannot cancel a position bias: no result rather than a biased one.
    const error = [first, second].find((o) => o.pick === null)!.reason;
    return { ...base, detail: error, orders, direct, error };
  }
  return { ...base, ...combineOrders(first.pick, second.pick), orders, direct };
}
