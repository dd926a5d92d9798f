/** memory: on the dispatcher's first entry, pulls relevant earlier runs into the run's context. */
import type { EngineContext, RunState } from '../state.ts';
import type { NodeResult } from './types.ts';

const MEMORY_HITS = 3;

export async function memory(run: RunState, ctx: EngineContext): Promise<NodeResult> {
  try {
    run.memory = await ctx.store.searchMemory(run.request.query, MEMORY_HITS);
  } catch (err) {
    // Memory is a help, not a requirement: a store failure must not fail the run.
    ctx.logger.warn('memory search failed', { runId: run.id, error: (err as Error).message });
    run.memory = [];
  }
  return 'dispatcher';
}
