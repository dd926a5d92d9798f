/**
 * Applies what a node decided (its RunUpdate) to the run: the one place a node's decisions land. The
 * outcome is not among them: the engine's loop reads it from the update and sets it itself (engine.ts).
 */
import type { RunState, RunUpdate } from './state.ts';

export function applyUpdate(run: RunState, update: Omit<RunUpdate, 'outcome'>): void {
  const { stepOutcomes, ...fields } = update;
  Object.assign(run, fields);
  if (stepOutcomes) {
    for (const [id, outcome] of stepOutcomes) {
      run.results.set(id, outcome);
      run.pending.delete(id);
    }
  }
}
