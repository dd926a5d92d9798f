/**
 * One HTTP attempt's cancellation: our own timer (covering the whole response, body included, which
 * the SDK's timeout does not) joined with the caller's AbortSignal, remembering which one fired.
 * A call that completed is not aborted afterwards (aborting a finished fetch costs an abort event
 * through the SDK's and undici's listeners for nothing).
 *
 * The caller's signal is joined by a listener removed in done(), not by AbortSignal.any: on Node 20
 * a composite signal that keeps a listener (the SDK's and undici's stay on it) is never collected
 * (nodejs/node#55351, #64476; measured: ~1.2 KB per call retained, see docs/performance.md).
 */
import type { AttemptState } from './errors.ts';

export interface Attempt extends AttemptState {
  /** The signal the request runs under. */
  readonly signal: AbortSignal;
  /** Which of the two fired (for toModelError). */
  readonly state: AttemptState;
  /** Restarts the timer: for streams the timeout is the longest wait for the next chunk. */
  touch(): void;
  /** The response was read to its end: nothing is left open, done() need not abort the request. */
  complete(): void;
  /** Clears the timer and aborts the request if it may still be open (e.g. a stream left early). */
  done(): void;
}

export function startAttempt(callerSignal: AbortSignal | undefined, timeoutMs: number): Attempt {
  const controller = new AbortController();
  let completed = false;
  const attempt: Attempt = {
    signal: controller.signal,
    get state() {
      return attempt;
    },
    timedOut: false,
    aborted: false,
    touch: () => timer.refresh(),
    complete: () => {
      completed = true;
    },
    done: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      if (!completed && !controller.signal.aborted) controller.abort(new Error('attempt finished'));
    },
  };
  // Whichever fires first is the one remembered.
  const onCallerAbort = (): void => {
    if (!attempt.timedOut) attempt.aborted = true;
    controller.abort(callerSignal?.reason);
  };
  // A timer rather than AbortSignal.timeout: a stream re-arms it on every chunk (touch), in place.
  const timer = setTimeout(() => {
    if (!attempt.aborted) attempt.timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return attempt;
}
