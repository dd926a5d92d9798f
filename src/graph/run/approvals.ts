/**
 * A run's approvals as its handle offers them (RunHandle.pendingApprovals and resolve): an adapter
 * answers through the run it serves, never through a second port. Backed by the one ApprovalPort, so
 * the first answer on any channel (POST /api/approve, ACP, AG-UI, A2A, MCP) wins.
 */
import type { ApprovalDecision, ApprovalPort, ApprovalRequest, ResolveAnswer } from '../../hitl/types.ts';
import type { RunHandle } from './engine-port.ts';

export type RunApprovals = Pick<RunHandle, 'pendingApprovals' | 'resolve'>;

/** The pending approvals of run `runId`, owned by `callerId`: whoever holds the handle may see the run, and so its approvals. */
export function pendingRunApprovals(approvals: ApprovalPort, runId: string, callerId: string): ApprovalRequest[] {
  return approvals.listPending(runId, { id: callerId });
}

/** Answers an approval of run `runId`: an id of another run's pending approval answers not_found, like an unknown id. */
export async function resolveRunApproval(
  approvals: ApprovalPort,
  runId: string,
  callerId: string,
  requestId: string,
  decision: ApprovalDecision,
  actor: string,
): Promise<ResolveAnswer> {
  const owner = { id: callerId };
  if ((approvals.get(requestId, owner)?.runId ?? runId) !== runId) {
    return { ok: false, code: 'not_found', message: `no approval with id ${requestId}` };
  }
  return approvals.resolve(requestId, decision, actor, owner);
}

/**
 * Both as a live handle's closures. A handle kept long (a finished run's, retention/stored-handle.ts) calls
 * the two functions from its methods instead: two closures and their context per retained run add up.
 */
export function runApprovals(approvals: ApprovalPort, runId: string, callerId: string): RunApprovals {
  return {
    pendingApprovals: () => pendingRunApprovals(approvals, runId, callerId),
    resolve: (requestId, decision, actor) => resolveRunApproval(approvals, runId, callerId, requestId, decision, actor),
  };
}
