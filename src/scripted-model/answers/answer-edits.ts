/**
 * The `answer_edits` answer (the editor revising a dynamic team's answer for the verifier's notes): one
 * edit that adds a line answering the notes after the answer's last line, as the whole-answer editor does
 * (text.ts editedAnswer), so both paths give the same answer. [[edits:miss]] names a passage the answer
 * does not hold instead.
 */
import { block, type RequestContext } from '../context.ts';

export function answerEditsAnswer(ctx: RequestContext): { edits: { find: string; replace: string }[] } {
  const notes = block([ctx.lastUserText], 'verifier_notes');
  if (!notes) return { edits: [] };
  if (ctx.directives.editsMiss) return { edits: [{ find: 'a passage this answer does not hold', replace: notes }] };
  const last =
    (ctx.answer ?? '')
      .split('\n')
      .filter((line) => line.trim())
      .at(-1) ?? '';
  return { edits: [{ find: last, replace: `${last}\n\nRevised where the review asked: ${notes}` }] };
}
