/**
 * Revising an answer already written (a dynamic team's manager's) by edits, not by writing it again: the
 * editor names each passage to change and its replacement (schemaName `answer_edits`), and Parley applies
 * them. A review (docs/prompt-reviews/2026-12-02-dynamic) had the editor repeat an 18,000-character answer
 * word for word to add one caveat; the edits for it are a few hundred characters. An edit that does not
 * apply (its passage is not in the answer, or is there more than once) leaves the answer to the editor that
 * writes it out whole (synthesizer.ts): nothing is cut or changed silently.
 */
import { z } from 'zod';
import { block, stepsBlock } from '../prompting/prompts.ts';
import { withHistoryThenMemory } from '../prompting/memory-note.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { userContent } from '../prompting/user-content.ts';
import { fitStepOutputs } from '../prompting/context-budget.ts';
import { BudgetExceededError } from '../spending/usage.ts';
import type { EngineContext, NodeRun } from '../run/state.ts';
import type { StepOutcome } from '../planning/scheduler.ts';

/** schemaName `answer_edits` (EDITS_SYSTEM explains every field). */
export const AnswerEditsSchema = z.object({
  edits: z
    .array(
      z.object({
        find: z.string().describe('A passage copied exactly from the answer, found once in it'),
        replace: z.string().describe('The text that takes its place'),
      }),
    )
    .describe('The changes, in the order of the answer; [] when the answer needs none'),
});
export type AnswerEdit = z.infer<typeof AnswerEditsSchema>['edits'][number];

/** Every field of `answer_edits` and every block of the request explained (the reader-facing rules are the caller's). */
export const EDITS_SYSTEM = `You are Parley's editor. The parley:answer block holds the answer to the query in the parley:query block, already written
from the step results in the parley:steps block; the parley:verifier_notes block holds a reviewer's notes on it.
Make the changes the notes call for, checked against the step results, and nothing else: keep the answer's structure,
wording, order and length everywhere else. You do not write the answer out again: you name each change, and Parley
applies it to the answer.
Answer with:
- "edits": one item per change, in the order of the answer; [] when the notes call for no change.
  - "find": a passage copied exactly from the answer (same characters, spaces and line breaks), long enough to occur only
    once in it: a sentence, a line, or a short paragraph.
  - "replace": the text that takes its place. To add text, repeat the passage and add to it (a caveat after a sentence:
    that sentence, then the caveat); to remove a passage, "".
An edit whose passage is not found exactly once is not applied, and the answer is then rewritten whole.`;

export type EditsResult = { ok: true; text: string } | { ok: false; unmatched: string[] };

/**
 * The answer with every edit applied, each to the text as the edits before it left it; when an edit's
 * passage is missing or occurs more than once, none is applied and the passages that failed are named.
 */
export function applyEdits(answer: string, edits: readonly AnswerEdit[]): EditsResult {
  let text = answer;
  const unmatched: string[] = [];
  for (const { find, replace } of edits) {
    const at = find ? text.indexOf(find) : -1;
    if (at < 0 || text.indexOf(find, at + 1) >= 0) {
      unmatched.push(find);
      continue;
    }
    text = text.slice(0, at) + replace + text.slice(at + find.length);
  }
  return unmatched.length ? { ok: false, unmatched } : { ok: true, text };
}

export interface EditInput {
  /** The answer as written. */
  written: string;
  /** The verifier's notes it is revised for. */
  notes: string;
  outcomes: StepOutcome[];
  /** What the answer may say about how it was made (the synthesizer's rules for the reader). */
  readerRules: string;
}

/**
 * The written answer revised by the editor's edits, or undefined when they did not apply or the call
 * failed (logged): the caller then has the answer rewritten whole. Cancellation and budgets end the run.
 */
export async function reviseByEdits(run: NodeRun, ctx: EngineContext, input: EditInput): Promise<string | undefined> {
  const system = `${EDITS_SYSTEM}\n${input.readerRules}${todayNoteOf(ctx)}`;
  const fitted = await fitStepOutputs(
    run,
    ctx,
    { role: 'synthesizer' },
    [system, run.request.query, input.notes, input.written],
    input.outcomes,
  );
  const blocks = [
    block('query', run.request.query),
    block('answer', input.written),
    stepsBlock(input.outcomes, fitted, false),
    block('verifier_notes', input.notes),
  ];
  let edits: AnswerEdit[];
  try {
    const { value } = await run.model.structured({
      role: 'synthesizer',
      schemaName: 'answer_edits',
      schema: AnswerEditsSchema,
      messages: [
        ...withHistoryThenMemory(system, run.history, run.memory),
        { role: 'user', content: userContent(run, ctx, 'synthesizer', blocks.join('\n\n')) },
      ],
      signal: run.abort.signal,
    });
    edits = value.edits;
  } catch (err) {
    if (run.abort.signal.aborted || err instanceof BudgetExceededError) throw err;
    ctx.logger.warn('the edits to the answer failed; rewriting it whole', {
      runId: run.id,
      error: (err as Error).message,
    });
    return undefined;
  }
  const applied = applyEdits(input.written, edits);
  if (applied.ok) return applied.text;
  ctx.logger.warn('an edit to the answer did not apply; rewriting it whole', {
    runId: run.id,
    unmatched: applied.unmatched.map((f) => f.slice(0, 80)),
  });
  return undefined;
}
