/**
 * A run's approvals as its handle offers them (RunHandle.pendingApprovals and resolve): an adapter
 * answers through the run it serves, never through a second port. Backed by the one ApprovalPort, so
 * the first answer on any channel (POST /api/approve, ACP, AG-UI, A2A, MCP) wins.
 */
import type { ApprovalPort } from '../hitl/types.ts';
import type { RunHandle } from './run-engine.ts';

export type RunApprovals = Pick<RunHandle, 'pendingApprovals' | 'resolve'>;

/**
 * The approvals of run `runId`, owned by `callerId`: whoever holds the handle may see the run, and so
 * its approvals. An id of another run's pending approval answers not_found, like an unknown id.
 */
export function runApprovals(approvals: ApprovalPort, runId: string, callerId: string): RunApprovals {
  const owner = { id: callerId };
  return {
    pendingApprovals: () => approvals.listPending(runId, owner),
    resolve: async (requestId, decision, actor) => {
      if ((approvals.get(requestId, owner)?.runId ?? runId) !== runId) {
        return { ok: false, code: 'not_found', message: `no approval with id ${requestId}` };
      }
      return approvals.resolve(requestId, decision, actor, owner);
    },
  };
}
