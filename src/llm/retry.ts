/** Backoff between attempts: exponential with jitter, or exactly what the server's Retry-After asks. */
import type { ModelError } from './errors.ts';

export const MAX_DELAY_MS = 30_000;

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
}

/**
 * Delay before retry number `retry` (0-based), or undefined when the error must not be retried.
 * Jitter keeps many runs that failed together from retrying together; Retry-After wins when given,
 * and one longer than the cap is not waited for (the caller gets the error and its retryAfterMs).
 */
export function retryDelay(
  err: ModelError,
  retry: number,
  policy: RetryPolicy,
  random = Math.random,
): number | undefined {
  if (!err.retryable || retry >= policy.maxRetries) return undefined;
  if (err.retryAfterMs !== undefined) return err.retryAfterMs <= MAX_DELAY_MS ? err.retryAfterMs : undefined;
  const exponential = Math.min(MAX_DELAY_MS, policy.baseMs * 2 ** retry);
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/** Waits ms unless the signal aborts first; resolves false when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
