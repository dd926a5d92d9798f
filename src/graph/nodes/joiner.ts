/**
 * The joiner (nodes research_joiner and execution_joiner: one function, two names, so the event stream
 * says which phase a barrier closed): waits for every step of the batch the dispatcher started, then
 * folds the outcomes (with their lineage) into the run's results.
 */
import type { EngineContext, RunState } from '../state.ts';
import type { Next } from '../edges.ts';

export async function joiner(
  run: RunState,
  _ctx: EngineContext,
): Promise<Next<'research_joiner' | 'execution_joiner'>> {
  const inflight = run.inflight;
  if (!inflight) return 'dispatcher';
  const outcomes = await inflight;
  run.inflight = undefined;
  for (const [id, outcome] of outcomes) {
    run.results.set(id, outcome);
    run.pending.delete(id);
  }
  return 'dispatcher';
}
