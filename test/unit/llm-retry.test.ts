import { describe, expect, it } from 'vitest';
import { ModelError, retryAfterMs } from '../../src/llm/errors.ts';
import { MAX_DELAY_MS, retryDelay } from '../../src/llm/retry.ts';

const policy = { maxRetries: 3, baseMs: 100 };

describe('retry delay', () => {
  it('doubles per retry with jitter between half and the full step', () => {
    const err = new ModelError('server', 'boom', { status: 503 });
    expect(retryDelay(err, 0, policy, () => 0)).toBe(50);
    expect(retryDelay(err, 0, policy, () => 1)).toBe(100);
    expect(retryDelay(err, 2, policy, () => 1)).toBe(400);
  });

  it('caps the exponential step', () => {
    expect(retryDelay(new ModelError('timeout', 't'), 20, { maxRetries: 30, baseMs: 1000 }, () => 1)).toBe(
      MAX_DELAY_MS,
    );
  });

  it('uses Retry-After exactly, and gives up when it is longer than the cap', () => {
    expect(retryDelay(new ModelError('rate_limited', 'r', { retryAfterMs: 2000 }), 0, policy)).toBe(2000);
    expect(
      retryDelay(new ModelError('rate_limited', 'r', { retryAfterMs: MAX_DELAY_MS + 1 }), 0, policy),
    ).toBeUndefined();
  });

  it('does not retry non-retryable kinds or past maxRetries', () => {
    expect(retryDelay(new ModelError('bad_request', 'b', { status: 400 }), 0, policy)).toBeUndefined();
    expect(retryDelay(new ModelError('aborted', 'a'), 0, policy)).toBeUndefined();
    expect(retryDelay(new ModelError('server', 's'), 3, policy)).toBeUndefined();
  });
});

describe('Retry-After parsing', () => {
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '1' }))).toBe(150);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
