/**
 * The joiner (nodes research_joiner and execution_joiner: one function, two names, so the event stream
 * says which phase a barrier closed): waits for every step of the batch the dispatcher started, then
 * folds the outcomes (with their lineage) into the run's results and each step's attempt into run.attempts.
 */
import type { EngineContext, NodeRun } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';

export async function joiner(run: NodeRun, _ctx: EngineContext): Promise<Decision<Next<'research_joiner'>>> {
  const inflight = run.inflight;
  if (!inflight) return { next: 'dispatcher' };
  const batch = await inflight;
  return {
    next: 'dispatcher',
    update: {
      inflight: undefined,
      stepOutcomes: batch.outcomes,
      attempts: new Map([...run.attempts, ...batch.attempts]),
    },
  };
}
