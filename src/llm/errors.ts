/** ModelError: the one error type model calls throw, with a kind callers can branch on. */
import type { ModelUsage } from './types.ts';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

export type ModelErrorKind = 'rate_limited' | 'timeout' | 'aborted' | 'server' | 'invalid_output' | 'bad_request';

export interface ModelErrorDetails {
  status?: number;
  /** What the server asked us to wait before retrying (Retry-After / retry-after-ms). */
  retryAfterMs?: number;
  role?: string;
  model?: string;
  /** HTTP attempts made before giving up. */
  attempts?: number;
  /** invalid_output: the model's last answer and why it was rejected. */
  raw?: string;
  issues?: string;
  /** invalid_output: what the rejected answers cost (tokens were spent even though the call failed). */
  usage?: ModelUsage;
  cause?: unknown;
}

export class ModelError extends Error {
  override name = 'ModelError';
  readonly kind: ModelErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly role?: string;
  readonly model?: string;
  attempts?: number;
  readonly raw?: string;
  readonly issues?: string;
  readonly usage?: ModelUsage;

  constructor(kind: ModelErrorKind, message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.role = details.role;
    this.model = details.model;
    this.attempts = details.attempts;
    this.raw = details.raw;
    this.issues = details.issues;
    this.usage = details.usage;
  }

  /** Worth another attempt: rate limits, server errors, timeouts, dropped connections. */
  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'server' || this.kind === 'timeout';
  }
}

/** Reads Retry-After (seconds or HTTP date) or the non-standard retry-after-ms. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface AttemptState {
  /** Our own per-attempt timer fired. */
  timedOut: boolean;
  /** The caller's signal aborted. */
  aborted: boolean;
}

/** Maps anything a call can throw to a ModelError; the attempt state disambiguates aborts. */
export function toModelError(err: unknown, state: AttemptState, where: { role: string; model: string }): ModelError {
  if (err instanceof ModelError) return err;
  const base = { ...where, cause: err };
  if (state.aborted) return new ModelError('aborted', `The ${where.role} model call was cancelled.`, base);
  if (state.timedOut || err instanceof APIConnectionTimeoutError)
    return new ModelError('timeout', `The ${where.role} model call (${where.model}) timed out.`, base);
  if (err instanceof APIUserAbortError)
    return new ModelError('aborted', `The ${where.role} model call was cancelled.`, base);
  if (err instanceof APIConnectionError)
    return new ModelError(
      'server',
      `Could not reach the model endpoint for ${where.role} (${where.model}): ${err.message}`,
      base,
    );
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const details = { ...base, status, retryAfterMs: retryAfterMs(err.headers) };
    if (status === 429)
      return new ModelError('rate_limited', `The model endpoint rate-limited ${where.role} (${where.model}).`, details);
    if (status === 408 || status >= 500)
      return new ModelError(
        status === 408 ? 'timeout' : 'server',
        `The model endpoint failed with HTTP ${status}: ${err.message}`,
        details,
      );
    return new ModelError(
      'bad_request',
      `The model endpoint rejected the ${where.role} call with HTTP ${status}: ${err.message}`,
      details,
    );
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new ModelError('timeout', `The ${where.role} model call (${where.model}) timed out.`, base);
  }
  // Anything else (a body that is not JSON, a dropped stream) is the server's fault and worth a retry.
  return new ModelError(
    'server',
    `The ${where.role} model call failed: ${err instanceof Error ? err.message : String(err)}`,
    base,
  );
}
