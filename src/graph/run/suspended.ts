/**
 * Why a run stopped as it is, checkpointed, to go on elsewhere: at shutdown while it waited on a human
 * (the next start resumes it), or on a replica that stops or lost the run's lease (another replica
 * resumes it). No run.finished and no record are written; the steps it interrupted are not announced
 * as finished either, since they run again where the run resumes.
 */
import type { RunResult } from './engine-port.ts';
import type { RunState } from './state.ts';

export class RunSuspendedError extends Error {
  override name = 'RunSuspendedError';
}

export const isSuspended = (signal: AbortSignal): boolean => signal.reason instanceof RunSuspendedError;

/** A run stopped as it is: its log ends, nothing is emitted or recorded, and the store keeps it unfinished. */
export function endSuspended(run: RunState): RunResult {
  run.log.end();
  const error = (run.abort.signal.reason as Error).message;
  const usage = { ...run.meter.totals };
  return { runId: run.id, threadId: run.threadId, status: 'cancelled', error, usage, durationMs: 0 };
}
