/**
 * The LLM-as-judge check (docs/evals.md): one structured call through the `judge` model role
 * (PARLEY_MODEL_JUDGE, else the default model) grades a run's answer against the case's rubric.
 */
import { z } from 'zod';
import type { ModelClient, ModelUsage } from '../../llm/types.ts';
import { block } from '../prompts.ts';

export const JudgementSchema = z.object({
  score: z.number().min(0).max(1).describe('How well the answer meets the rubric, from 0 (not at all) to 1 (fully)'),
  reason: z.string().describe('One or two sentences naming what the score rests on'),
});
export type Judgement = z.infer<typeof JudgementSchema>;

export const JUDGE_SYSTEM = `You grade one answer of an AI assistant against a rubric, for an evaluation suite.

The parley:query block holds what the user asked; the parley:answer block holds the assistant's whole answer; the
parley:rubric block says what a good answer must do. Judge the answer against the rubric only: not its length,
not its style unless the rubric asks about it.

Fields:
- "score": a number from 0 to 1: 1 when the answer meets every point of the rubric, 0 when it meets none; partial
  credit in between, in proportion to the points met.
- "reason": one or two sentences naming the points met and missed, so a reader can check the score.`;

export async function judge(
  model: ModelClient,
  input: { query: string; answer: string; rubric: string; runId: string },
): Promise<Judgement & { usage: ModelUsage }> {
  const { value, usage } = await model.structured({
    role: 'judge',
    schemaName: 'judgement',
    schema: JudgementSchema,
    runId: input.runId,
    messages: [
      { role: 'system', content: JUDGE_SYSTEM },
      {
        role: 'user',
        content: [block('query', input.query), block('answer', input.answer), block('rubric', input.rubric)].join(
          '\n\n',
        ),
      },
    ],
  });
  return { ...value, usage };
}
