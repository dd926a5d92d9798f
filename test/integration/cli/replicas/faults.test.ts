/**
 * Issue 44 §4 and §5 on two `parley serve` replicas sharing a real Postgres and Redis:
 *   - GET /api/runs/:id/events with Accept: application/json answers at once, with the events so far,
 *     on the replica holding a run waiting on an approval and on the other one (it used to block on
 *     the holder until the approval ended, and answer [] on the other);
 *   - a cancel asked on replica B for a run held by A while Redis is down is a 503 with Retry-After,
 *     never a 202 that does nothing: the run goes on, and a cancel once Redis is back takes hold.
 */
import { describe, expect, it, vi } from 'vitest';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { acceptAll, askedIn, replicasMissing, startRun, useReplicas } from '../../../support/replicas.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';

const missing = replicasMissing();
if (missing) console.log(`faults.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 180_000 });

const { replica, writeQuery, redisOutage } = useReplicas('parley-faults');

/** GET /api/runs/:id/events as JSON, timed. */
async function jsonEvents(url: string, runId: string) {
  const t0 = Date.now();
  const res = await fetch(`${url}/api/runs/${runId}/events`, { headers: { accept: 'application/json' } });
  return { status: res.status, ms: Date.now() - t0, events: (await res.json()) as GraphEvent[] };
}

describe.skipIf(missing !== undefined)('replicas under faults', () => {
  it('JSON events of a run waiting on an approval answer at once, with the events so far, on either replica', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('json.txt', 'json'), mode: 'orchestrate' },
      'approval.requested',
    );
    const seen = run.events.map((e) => e.seq);
    for (const url of [a.url, b.url]) {
      const read = await jsonEvents(url, run.runId);
      expect(read.status).toBe(200);
      expect(read.ms, url).toBeLessThan(3_000);
      // Everything the stream had told up to its approval, in order, on both replicas.
      expect(read.events.map((e) => e.seq).slice(0, seen.length)).toEqual(seen);
      expect(read.events.some((e) => e.type === 'approval.requested')).toBe(true);
    }
    const ask = askedIn(run.events);
    expect((await postJson(`${a.url}/api/approve`, { request_id: ask.id, decisions: acceptAll(ask) })).status).toBe(
      200,
    );
    await run.done;
    for (const url of [a.url, b.url]) {
      const read = await jsonEvents(url, run.runId);
      expect(read.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    }
  });

  it('a cancel on B of a run held by A during a Redis outage is a 503 with Retry-After; after it, it takes hold', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('cancel.txt', 'kept'), mode: 'orchestrate' },
      'approval.requested',
    );
    // B knows the run is held by A.
    await vi.waitFor(async () => expect((await fetch(`${b.url}/api/runs/${run.runId}`)).status).toBe(200));
    let down = true;
    const outage = redisOutage(8_000).finally(() => (down = false));
    await new Promise((r) => setTimeout(r, 1_000)); // Redis is gone and both replicas noticed
    const refused = await fetch(`${b.url}/stream/${run.runId}/cancel`, { method: 'POST' });
    const body = await refused.text();
    expect(down, 'answered during the outage').toBe(true);
    expect(refused.status, body).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await outage;
    // The run was not cancelled meanwhile; once Redis is back, the cancel from B reaches A.
    expect(run.events.some((e) => e.type === 'run.finished')).toBe(false);
    await vi.waitFor(async () => expect((await fetch(`${b.url}/ready`)).status).toBe(200), { timeout: 30_000 });
    const taken = await vi.waitFor(
      async () => {
        const res = await fetch(`${b.url}/stream/${run.runId}/cancel`, { method: 'POST' });
        expect(res.status).toBe(202);
        return (await res.json()) as { status: string };
      },
      { timeout: 30_000 },
    );
    expect(['cancelled', 'cancelling']).toContain(taken.status);
    await run.done;
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
  });
});
