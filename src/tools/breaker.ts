/**
 * Per-server circuit breaker. Closed: calls go through. After `threshold` consecutive failures it
 * opens and calls fail fast for `cooldownMs`; then it lets exactly one trial call through
 * (half-open): success closes it, failure opens it again for another cooldown.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  threshold: number;
  cooldownMs: number;
  now?: () => number;
}

export class CircuitBreaker {
  #failures = 0;
  #openedAt = 0;
  #open = false;
  #trialInFlight = false;
  #lastError = '';
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #now: () => number;

  constructor(options: BreakerOptions) {
    this.#threshold = options.threshold;
    this.#cooldownMs = options.cooldownMs;
    this.#now = options.now ?? Date.now;
  }

  get state(): BreakerState {
    if (!this.#open) return 'closed';
    return this.#now() - this.#openedAt >= this.#cooldownMs ? 'half-open' : 'open';
  }

  get lastError(): string {
    return this.#lastError;
  }

  /** When the breaker lets a trial call through again (ms since epoch); 0 when closed. */
  get retryAt(): number {
    return this.#open ? this.#openedAt + this.#cooldownMs : 0;
  }

  /** Asks to make a call. False means fail fast. A true in half-open claims the single trial. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#trialInFlight) return false;
    this.#trialInFlight = true;
    return true;
  }

  success(): void {
    this.#failures = 0;
    this.#open = false;
    this.#trialInFlight = false;
  }

  failure(error: string): void {
    this.#lastError = error;
    this.#failures += 1;
    if (this.#trialInFlight || this.#failures >= this.#threshold) {
      this.#open = true;
      this.#openedAt = this.#now();
    }
    this.#trialInFlight = false;
  }

  /** A call that ended without telling us anything about the server (e.g. the caller aborted). */
  release(): void {
    this.#trialInFlight = false;
  }
}
