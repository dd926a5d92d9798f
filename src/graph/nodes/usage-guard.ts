/**
 * usage_guard: the run's caller rate limit and its caller's and thread's window budgets admitted it at
 * engine.start (spending/refusals.ts: a refused request never becomes a run); the guard tells adapters
 * so (RunHandle.admission). Per-call budget checks happen later, by reservation, in the run's metered
 * model client (metered-model.ts).
 */
import type { NodeRun } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';
import { ADMITTED } from '../spending/admission.ts';

export async function usageGuard(run: NodeRun): Promise<Decision<Next<'usage_guard'>>> {
  run.admit(ADMITTED);
  return { next: 'router' };
}
