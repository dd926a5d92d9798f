/** The `verification` answer: a score from the step statuses, or the [[verify:…]] score for this round. */
import type { RequestContext } from '../context.ts';

const succeeded = (status: string) => ['succeeded', 'success', 'ok', 'completed', 'done'].includes(status);

export function verificationAnswer(ctx: RequestContext): { score: number; feedback: string; failedStepIds: string[] } {
  const steps = ctx.steps ?? [];
  const failed = steps.filter((s) => !succeeded(s.status)).map((s) => s.id);
  const scripted = ctx.directives.verify;
  if (scripted) {
    const round = ctx.round ?? 1;
    const score = scripted[Math.min(round, scripted.length) - 1]!;
    // A low scripted score with nothing failed still has to name steps to retry.
    const ids = score < 0.7 ? (failed.length ? failed : steps.map((s) => s.id)) : [];
    return { score, feedback: `Scripted verification for round ${round}: score ${score}.`, failedStepIds: ids };
  }
  if (steps.length > 0 && failed.length === 0)
    // A pass with nothing for the answer to mention, as the verifier's prompt asks: no feedback.
    return { score: 0.9, feedback: '', failedStepIds: [] };
  if (failed.length < steps.length)
    return { score: 0.5, feedback: `Steps ${failed.join(', ')} failed; retry them.`, failedStepIds: failed };
  return { score: 0.2, feedback: 'No step succeeded; the plan needs rethinking.', failedStepIds: failed };
}
