/**
 * One HTTP attempt's cancellation: our own timer (covering the whole response, body included, which
 * the SDK's timeout does not) joined with the caller's AbortSignal, remembering which one fired.
 */
import type { AttemptState } from './errors.ts';

export interface Attempt {
  signal: AbortSignal;
  state: AttemptState;
  /** Restarts the timer: for streams the timeout is the longest wait for the next chunk. */
  touch(): void;
  /** Clears the timer and aborts the request if it is still open (e.g. a stream left early). */
  done(): void;
}

export function startAttempt(callerSignal: AbortSignal | undefined, timeoutMs: number): Attempt {
  const controller = new AbortController();
  const state: AttemptState = { timedOut: false, aborted: false };
  const onCallerAbort = () => {
    if (!state.timedOut) state.aborted = true;
    controller.abort(callerSignal?.reason);
  };
  const onTimeout = () => {
    if (!state.aborted) state.timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  };
  const timer = setTimeout(onTimeout, timeoutMs);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    state,
    touch() {
      // Called per streamed chunk: re-arm the same timer instead of allocating a new one.
      timer.refresh();
    },
    done() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      if (!controller.signal.aborted) controller.abort(new Error('attempt finished'));
    },
  };
}
