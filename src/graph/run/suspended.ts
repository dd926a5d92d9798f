/**
 * Why a run stopped as it is, checkpointed, to go on elsewhere: at shutdown while it waited on a human
 * (the next start resumes it), or on a replica that stops or lost the run's lease (another replica
 * resumes it). No run.finished and no record are written; the steps it interrupted are not announced
 * as finished either, since they run again where the run resumes.
 */
export class RunSuspendedError extends Error {
  override name = 'RunSuspendedError';
}

export const isSuspended = (signal: AbortSignal): boolean => signal.reason instanceof RunSuspendedError;
