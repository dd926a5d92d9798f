/**
 * The approval port as one caller sees it: every look-up and answer passes the caller, so another
 * caller's request is "not found" through any code that takes an ApprovalPort (e.g. AG-UI resume).
 */
import type { Caller } from '../identity/caller.ts';
import type { ApprovalPort } from './types.ts';

export function approvalsFor(port: ApprovalPort, caller: Caller): ApprovalPort {
  return {
    request: (input, options) => port.request(input, options),
    resolve: (id, decision, actor) => port.resolve(id, decision, actor, caller),
    get: (id) => port.get(id, caller),
    listPending: (runId) => port.listPending(runId, caller),
    cancelRun: (runId) => port.cancelRun(runId),
  };
}
