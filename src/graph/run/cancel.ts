/**
 * A cancel that answers what happened (docs/protocols/sse.md, docs/deployment.md "Replicas"). The
 * engine's cancel() only says whether the cancel was sent; for a run executing on another replica it
 * is a message that replica acts on. This waits (at most `waitMs`) for the run's own ending, which is
 * the truth on every replica: ended `cancelled` after the cancel took hold, or ended otherwise first.
 */
import type { CancelAnswer, RunHandle } from './engine-port.ts';

/** Why a run was cancelled (engine.cancel or shutdown); its message becomes run.finished.error. */
export class RunCancelledError extends Error {
  override name = 'RunCancelledError';
}

/** The abort reason that stops whatever a finished run left behind: one instance, no stack trace per run. */
export const RUN_FINISHED = new RunCancelledError('run finished');

/** How long a cancel waits for the run to end: a cancelled run ends at its next await, a replica's within one message. */
export const CANCEL_CONFIRM_MS = 10_000;

export async function cancelAndSettle(handle: RunHandle, cancel: () => boolean, waitMs: number): Promise<CancelAnswer> {
  const sent = cancel();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
  try {
    const ended = await Promise.race([handle.result, waited]);
    if (!ended) return { outcome: 'cancelling' };
    return sent && ended.status === 'cancelled'
      ? { outcome: 'cancelled' }
      : { outcome: 'already_ended', status: ended.status };
  } finally {
    clearTimeout(timer);
  }
}
