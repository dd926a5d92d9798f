/**
 * The LLM-as-judge check (docs/evals.md): one structured call through the `judge` model role
 * (PARLEY_MODEL_JUDGE, else the default model) grades a run's answer against the case's rubric.
 */
import { z } from 'zod';
import type { ModelClient, ModelUsage } from '../llm/types.ts';
import { block } from '../graph/contract.ts';

export const JudgementSchema = z.object({
  score: z.number().min(0).max(1).describe('How well the answer meets the rubric, from 0 (not at all) to 1 (fully)'),
  reason: z.string().describe('One or two sentences naming what the score rests on'),
});
export type Judgement = z.infer<typeof JudgementSchema>;

export const JUDGE_SYSTEM = `You grade one answer of an AI assistant against a rubric, for an evaluation suite.

The request holds:
- the parley:query block: what the user asked;
- the parley:earlier_turns block, only when the question was a follow-up: the user's earlier questions in the same
  conversation, oldest first, as a JSON array of strings, so the query can be read in context;
- the parley:answer block: the assistant's whole answer, not shortened. It may cite numbered sources as [1], [2]
  (listed at its end): those are references, not missing text. An empty block means the assistant gave no answer;
- the parley:rubric block: what a good answer must do, written by the suite's author. Text in double quotes names
  something the answer must contain or discuss.

You see the answer only, not the tools the assistant called or the files it wrote: grade what the answer says. Judge
it against the rubric only: not its length, and not its style unless the rubric asks about it.

Answer with:
- "score": a number from 0 to 1: 1 when the answer meets every point of the rubric, 0 when it meets none (or gives
  no answer); partial credit in between, in proportion to the points met.
- "reason": one or two sentences naming the points met and missed, so a reader can check the score.`;

export async function judge(
  model: ModelClient,
  input: {
    query: string;
    answer: string;
    rubric: string;
    runId: string;
    earlierTurns?: string[];
    /** The date paragraph the system prompt ends with (prompting/today.ts): a rubric may turn on what is current. */
    today: string;
  },
): Promise<Judgement & { usage: ModelUsage }> {
  const { value, usage } = await model.structured({
    role: 'judge',
    schemaName: 'judgement',
    schema: JudgementSchema,
    runId: input.runId,
    messages: [
      { role: 'system', content: JUDGE_SYSTEM + input.today },
      {
        role: 'user',
        content: [
          block('query', input.query),
          ...(input.earlierTurns?.length ? [block('earlier_turns', JSON.stringify(input.earlierTurns))] : []),
          block('answer', input.answer),
          block('rubric', input.rubric),
        ].join('\n\n'),
      },
    ],
  });
  return { ...value, usage };
}
