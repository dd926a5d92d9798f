/**
 * A call deadline that can pause: time a tool call spends waiting for a human (an elicitation
 * the server asked for) does not count against the tool's timeout.
 */
export class PausableDeadline {
  #remaining: number;
  #startedAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pauses = 0;
  #done = false;

  constructor(
    ms: number,
    private readonly onExpire: () => void,
  ) {
    this.#remaining = ms;
    this.#arm();
  }

  /** Nested pauses are counted; the clock runs again when the last one resumes. */
  pause(): void {
    if (this.#done || this.#pauses++ > 0) return;
    clearTimeout(this.#timer);
    this.#remaining -= Date.now() - this.#startedAt;
  }

  resume(): void {
    if (this.#done || this.#pauses === 0 || --this.#pauses > 0) return;
    this.#arm();
  }

  clear(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    this.#startedAt = Date.now();
    this.#timer = setTimeout(
      () => {
        this.#done = true;
        this.onExpire();
      },
      // setTimeout fires at once beyond 2^31-1 ms.
      Math.min(Math.max(0, this.#remaining), 2_147_483_647),
    );
    this.#timer.unref?.();
  }
}
