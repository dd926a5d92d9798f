/**
 * usage_guard: admits the run against its caller's rate limit and its caller's and thread's window budgets. Per-call budget
 * checks happen later, by reservation, in the run's metered model client (metered-model.ts).
 */
import type { EngineContext, NodeRun } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';
import { BudgetExceededError } from '../spending/usage.ts';
import { ADMITTED } from '../spending/admission.ts';

export async function usageGuard(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'usage_guard'>>> {
  try {
    ctx.ledger.admitRun(run.callerId, run.threadId);
  } catch (err) {
    if (!(err instanceof BudgetExceededError)) throw err;
    // The ledger always says when a refused start frees up; 0 only if a future limit cannot tell.
    run.admit({ admitted: false, error: err.message, retryAfterMs: err.retryAfterMs ?? 0 });
    return {
      next: 'end',
      update: { outcome: { status: 'blocked', error: err.message, retryAfterMs: err.retryAfterMs } },
    };
  }
  run.admit(ADMITTED);
  return { next: 'router' };
}
