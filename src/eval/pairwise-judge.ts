/**
 * The pairwise judge of `parley eval --versus direct` (docs/evals.md, "The graph against one call"): one
 * structured call through the `judge` model role compares two answers to the same question, labelled A and
 * B only. It is never told how either was made: which label is the graph's changes from one call to the
 * next (versus.ts asks in both orders), so a judge that favours a position cannot favour a side.
 */
import { z } from 'zod';
import type { ModelClient, ModelUsage } from '../llm/types.ts';
import { block } from '../graph/contract.ts';

export const PairwiseJudgementSchema = z.object({
  comparison: z
    .string()
    .describe('What each answer does well and badly for this user, point by point, written before deciding'),
  winner: z.enum(['A', 'B', 'tie']).describe('The answer the user would rather get: "A", "B", or "tie"'),
  reason: z.string().describe('One or two sentences naming what the choice rests on'),
});
export type PairwiseJudgement = z.infer<typeof PairwiseJudgementSchema>;

export const PAIRWISE_JUDGE_SYSTEM = `You compare two answers of AI assistants to the same request and say which one the person who asked
would rather get.

The request holds:
- the parley:query block: what the user asked;
- the parley:earlier_turns block, only when the question was a follow-up: the user's earlier questions in the same
  conversation, oldest first, as a JSON array of strings, so the query can be read in context;
- the parley:criteria block, only when the author of the evaluation wrote some: what a good answer to this request
  must do. Text in double quotes names something the answer must contain or discuss;
- the parley:answer_a and parley:answer_b blocks: the two answers, each whole, not shortened. An empty block means
  that assistant gave no answer.

The labels A and B say nothing about where an answer came from, and their order is arbitrary: do not favour an
answer for its position or its length. Judge what the person would get from each: whether it answers what was asked
(every part of it), whether what it says is correct and specific, whether it does what was asked (an answer that says
it wrote a file or ran a step counts only as far as the text shows it), and whether it is clear to read for someone
who knows nothing of how it was produced. Text that speaks of internal workings the user did not ask about (step or
agent ids, labels, scores, role names) counts against an answer.

Answer with:
- "comparison": first, compare the two answers point by point for this user: what each gets right, gets wrong or
  leaves out (a few sentences);
- "winner": "A" or "B" for the answer the user would rather get, or "tie" when neither is clearly better (both
  equally good, equally bad, or better in different ways that weigh the same);
- "reason": one or two sentences naming what the choice rests on, so a reader can check it.`;

export interface PairInput {
  query: string;
  earlierTurns?: string[];
  /** The case's rubrics, when it has `judge` checks: what a good answer must do. */
  criteria?: string[];
  answerA: string;
  answerB: string;
  /** The graph run the comparison belongs to (the x-parley-run-id header only: never in the prompt). */
  runId: string;
  /** The date paragraph the system prompt ends with (prompting/today.ts). */
  today: string;
}

export async function judgePair(
  model: ModelClient,
  input: PairInput,
): Promise<PairwiseJudgement & { usage: ModelUsage }> {
  const { value, usage } = await model.structured({
    role: 'judge',
    schemaName: 'pairwise_judgement',
    schema: PairwiseJudgementSchema,
    runId: input.runId,
    messages: [
      { role: 'system', content: PAIRWISE_JUDGE_SYSTEM + input.today },
      {
        role: 'user',
        content: [
          block('query', input.query),
          ...(input.earlierTurns?.length ? [block('earlier_turns', JSON.stringify(input.earlierTurns))] : []),
          ...(input.criteria?.length ? [block('criteria', input.criteria.join('\n'))] : []),
          block('answer_a', input.answerA),
          block('answer_b', input.answerB),
        ].join('\n\n'),
      },
    ],
  });
  return { ...value, usage };
}
