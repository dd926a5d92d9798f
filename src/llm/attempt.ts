/**
 * One HTTP attempt's cancellation: our own timer (covering the whole response, body included, which
 * the SDK's timeout does not) joined with the caller's AbortSignal, remembering which one fired.
 *
 * A class with its listener and timer callback on the prototype: every in-flight model call holds
 * one, so it allocates no closures, and a call that completed is not aborted afterwards (aborting
 * a finished fetch costs an abort event through the SDK's and undici's listeners for nothing).
 */
import type { AttemptState } from './errors.ts';

export class Attempt implements AttemptState {
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  readonly #timeoutMs: number;
  readonly #timer: ReturnType<typeof setTimeout>;
  #completed = false;
  /** Our own per-attempt timer fired. */
  timedOut = false;
  /** The caller's signal aborted. */
  aborted = false;

  constructor(callerSignal: AbortSignal | undefined, timeoutMs: number) {
    this.#callerSignal = callerSignal;
    this.#timeoutMs = timeoutMs;
    this.#timer = setTimeout(onAttemptTimeout, timeoutMs, this);
    if (callerSignal?.aborted) this.handleEvent();
    else callerSignal?.addEventListener('abort', this, { once: true });
  }

  /** The signal the request runs under. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Which of the two fired (for toModelError). */
  get state(): AttemptState {
    return this;
  }

  /** The caller's signal aborted (EventListener object: no closure per attempt). */
  handleEvent(): void {
    if (!this.timedOut) this.aborted = true;
    this.#controller.abort(this.#callerSignal?.reason);
  }

  /** @internal the timer fired. */
  timeout(): void {
    if (!this.aborted) this.timedOut = true;
    this.#controller.abort(new Error(`timed out after ${this.#timeoutMs} ms`));
  }

  /** Restarts the timer: for streams the timeout is the longest wait for the next chunk. */
  touch(): void {
    // Called per streamed chunk: re-arm the same timer instead of allocating a new one.
    this.#timer.refresh();
  }

  /** The response was read to its end: nothing is left open, done() need not abort the request. */
  complete(): void {
    this.#completed = true;
  }

  /** Clears the timer and aborts the request if it may still be open (e.g. a stream left early). */
  done(): void {
    clearTimeout(this.#timer);
    this.#callerSignal?.removeEventListener('abort', this);
    if (!this.#completed && !this.#controller.signal.aborted) this.#controller.abort(new Error('attempt finished'));
  }
}

function onAttemptTimeout(attempt: Attempt): void {
  attempt.timeout();
}

export function startAttempt(callerSignal: AbortSignal | undefined, timeoutMs: number): Attempt {
  return new Attempt(callerSignal, timeoutMs);
}
