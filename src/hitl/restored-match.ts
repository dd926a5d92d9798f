/**
 * After a restart a resumed run asks again for what it asked before the restart; the broker hands it the
 * restored request instead of a new one, so the human answers the same id. The step issues the same tool
 * calls (same tool, same arguments), but a model may name them with new ids: the decision is carried
 * over to the new ids by position.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ApprovalOutcome, ApprovalRequest, ApprovalRequestInput } from './types.ts';

/** Whether `input` asks what the restored `request` asked: same run, step, kind, and the same calls or message. */
export function asksTheSame(request: ApprovalRequest, input: ApprovalRequestInput): boolean {
  if (request.runId !== input.runId || request.kind !== input.kind || request.stepId !== input.stepId) return false;
  if (request.kind === 'elicitation' || input.kind === 'elicitation') {
    return request.kind === 'elicitation' && input.kind === 'elicitation' && request.message === input.message;
  }
  return (
    request.toolCalls.length === input.toolCalls.length &&
    request.toolCalls.every(
      // Deep equality, not JSON text: a store may hand the arguments back with their keys reordered
      // (Postgres JSONB does), and the same call must still be recognised.
      (c, i) => c.tool === input.toolCalls[i]!.tool && isDeepStrictEqual(c.args, input.toolCalls[i]!.args),
    )
  );
}

/** The restored request's outcome, its tool decisions keyed by the new request's tool call ids. */
export function forNewCallIds(
  outcome: ApprovalOutcome,
  restored: ApprovalRequest,
  input: ApprovalRequestInput,
): ApprovalOutcome {
  if (outcome.decision.kind !== 'tool' || restored.kind !== 'tool' || input.kind !== 'tool') return outcome;
  const decisions = outcome.decision.decisions;
  const mapped = Object.fromEntries(
    restored.toolCalls.flatMap((c, i) => {
      const decision = decisions[c.toolCallId];
      return decision ? [[input.toolCalls[i]!.toolCallId, decision]] : [];
    }),
  );
  return { ...outcome, decision: { ...outcome.decision, decisions: mapped } };
}
