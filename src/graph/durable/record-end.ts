/**
 * The end of a run as it is remembered: its execution-memory record in the knowledge store and, with a
 * run store, its stored record carrying that memory record until the knowledge store has it (a kill -9
 * between the two is repaired at the next start: durable/recover.ts).
 */
import type { RunRecord } from '../../knowledge/store.ts';
import type { StoredRun } from '../../store/runs/run-store.ts';
import { runRecordOf } from '../run-record.ts';
import type { EngineContext, RunOutcome, RunState } from '../state.ts';

export async function recordEnd(
  ctx: EngineContext,
  run: RunState,
  outcome: RunOutcome,
  durationMs: number,
): Promise<void> {
  const record = runRecordOf(run, outcome, durationMs);
  if (!record) return;
  // The knowledge store commits records in groups: the run store keeps this one until it is in.
  const runStore = ctx.runStore;
  const stored = runStore ? storedEnd(run, record) : undefined;
  // A failed put is not dropped: the run store keeps retrying it in order, logs it and marks the run
  // degraded (store/runs/reliable-run-store.ts); the run's result must not wait for the database.
  if (stored) await runStore!.runs.put(stored).catch(() => undefined);
  try {
    await ctx.store.recordRun(record);
    if (stored) await runStore!.runs.put({ ...stored, remembered: true }).catch(() => undefined); // as above
  } catch (err) {
    ctx.logger.error('recording the run in execution memory failed', {
      runId: run.id,
      error: (err as Error).message,
    });
  }
}

/** The run's stored record once it ended, with the execution-memory record it is owed. */
function storedEnd(run: RunState, memory: RunRecord): StoredRun | undefined {
  const last = run.log.snapshot(run.log.lastSeq - 1)[0];
  if (last?.type !== 'run.finished') return undefined;
  const { type: _type, runId: _runId, seq: _seq, at: _at, ...ending } = last;
  return {
    id: run.id,
    callerId: run.callerId,
    threadId: run.threadId,
    status: last.status,
    request: run.request,
    createdAt: run.startedAt,
    updatedAt: Date.parse(last.at),
    ending,
    memory,
    remembered: false,
  };
}
