/**
 * research_joiner / execution_joiner: the barrier of a phase. Waits for every step of the batch the
 * dispatcher started, then folds the outcomes (with their lineage) into the run's results.
 */
import type { EngineContext, RunState } from '../state.ts';
import type { NodeResult } from './node.ts';

export async function joiner(run: RunState, _ctx: EngineContext): Promise<NodeResult> {
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

export const researchJoiner = joiner;
export const executionJoiner = joiner;
