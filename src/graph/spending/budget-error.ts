/** A budget or rate limit refused a run or a call; retryAfterMs when waiting would help. */
export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
  readonly retryAfterMs?: number;
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}
