/**
 * Admission is an engine API: RunHandle.admission says whether the usage guard let the run through,
 * or refused it and why, before any model call (adapters answer a refusal with 429 + Retry-After).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';

let p: TestParley;
beforeAll(async () => {
  p = await createTestParley({ config: { budget: { caller: { runsPerMinute: 1 } } } });
});
afterAll(async () => {
  await p?.close();
});

const requestsOf = (runId: string) => p.scripted.requests.filter((r) => r.runId === runId);

it('admits a run within its caller limit, and refuses the next one with the limit and a retry delay before any model call', async () => {
  const first = p.engine.start({ query: 'hello [[route:direct]]', protocol: 'test', caller: { id: 'admission-a' } });
  expect(await first.admission).toEqual({ admitted: true });
  expect((await first.result).status).toBe('completed');

  const second = p.engine.start({ query: 'hello again', protocol: 'test', caller: { id: 'admission-a' } });
  const refused = await second.admission;
  expect(refused).toEqual({
    admitted: false,
    error: expect.stringMatching(/^rate limit: caller "admission-a" may start 1 runs per minute/),
    retryAfterMs: expect.any(Number),
  });
  if (refused.admitted) throw new Error('unreachable: checked above');
  expect(refused.retryAfterMs).toBeGreaterThan(0);
  expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
  expect(await second.result).toMatchObject({
    status: 'blocked',
    error: refused.error,
    retryAfterMs: refused.retryAfterMs,
  });
  expect(requestsOf(second.id)).toHaveLength(0);

  // Another caller has its own limit.
  const other = p.engine.start({ query: 'hello [[route:direct]]', protocol: 'test', caller: { id: 'admission-b' } });
  expect(await other.admission).toEqual({ admitted: true });
  await other.result;
});

it('admits a run that ends before the guard decides (its stream carries its own ending)', async () => {
  const empty = p.engine.start({ query: '   ', protocol: 'test', caller: { id: 'admission-c' } });
  expect(await empty.admission).toEqual({ admitted: true });
  expect(await empty.result).toMatchObject({ status: 'failed', error: 'the query is empty' });

  const clash = p.engine.start({ query: 'hello', runId: empty.id, protocol: 'test', caller: { id: 'admission-c' } });
  expect(await clash.admission).toEqual({ admitted: true });
  expect(await clash.result).toMatchObject({ status: 'failed', error: `run id "${empty.id}" is already in use` });
});
