/**
 * memory: on the dispatcher's first entry, pulls relevant earlier runs of the same caller into the
 * run's context (another caller's queries and answers never reach this run's prompts), leaving out the
 * runs of the run's own thread, which its history already carries.
 */
import type { EngineContext, NodeRun, RunState } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';
import type { MemoryHit } from '../../knowledge/store.ts';
import { MEMORY_ANSWER_CHARS } from '../../knowledge/run-memory.ts';

const MEMORY_HITS = 3;

export async function memory(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'memory'>>> {
  const hits = await (run.memoryPrefetch ?? prefetchMemory(run, ctx));
  // The thread first: its own turns come as the run's history, so memory brings only other, similar runs.
  const inThread = new Set(run.history.runIds ?? []);
  return { next: 'dispatcher', update: { memory: inThread.size ? hits.filter((h) => !inThread.has(h.runId)) : hits } };
}

/**
 * Starts the memory search early (the router calls it before its planning call, so the search
 * overlaps the model's latency); never rejects.
 */
export function prefetchMemory(run: RunState, ctx: EngineContext): Promise<MemoryHit[]> {
  run.memoryPrefetch ??= ctx.store
    // What a prompt shows of an answer is all the run needs: no database read for the rest.
    .searchMemory(run.request.query, MEMORY_HITS, { callerId: run.callerId }, { answerChars: MEMORY_ANSWER_CHARS })
    .catch((err: unknown) => {
      // Memory is a help, not a requirement: a store failure must not fail the run.
      ctx.logger.warn('memory search failed', { runId: run.id, error: (err as Error).message });
      return [];
    });
  return run.memoryPrefetch;
}
