/**
 * Issue 44 §2: a request refused before it starts (429, the caller's rate limit) is not a run: it is
 * not stored, not listed, not retained, so one caller's rate-limited flood cannot push another
 * caller's finished runs out of retention; it is counted (engine.refusedStarts, the log). Retention
 * is fair per caller even among admitted runs. The whole server over real HTTP, with its run store.
 */
import { afterEach, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { startShippedParley, type ShippedParley } from '../../support/server.ts';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
let server: ShippedParley | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One run over POST /stream, read to its end: its id. */
async function runOnce(key: string, query = 'hello [[route:direct]]'): Promise<string> {
  const res = await postJson(`${server!.url}/stream`, { query }, bearer(key));
  expect(res.status).toBe(200);
  const events = (await readAll(res)).map((m) => m.json as { runId: string; type: string; status?: string });
  expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  return events[0]!.runId;
}

const eventsStatus = async (key: string, runId: string) =>
  (await fetch(`${server!.url}/api/runs/${runId}/events`, { headers: { ...bearer(key), accept: 'application/json' } }))
    .status;

const listed = async (key: string) =>
  (
    (await (await fetch(`${server!.url}/api/runs?limit=1000`, { headers: bearer(key) })).json()) as {
      runs: { id: string; status: string }[];
    }
  ).runs;

it("a caller's rate-limited flood is refused with 429, stores no run, and leaves the other caller's runs replayable", async () => {
  const warnings: string[] = [];
  server = await startShippedParley(
    { PARLEY_API_KEYS: 'k1,k2', PARLEY_RUN_RETENTION_MAX: '20', PARLEY_RATE_LIMIT_PER_MINUTE: '5' },
    { logger: createLogger('warn', (line) => warnings.push(line)) },
  );
  const k1Runs = [await runOnce('k1'), await runOnce('k1'), await runOnce('k1')];

  const statuses: number[] = [];
  for (let i = 0; i < 40; i++) {
    const res = await postJson(`${server.url}/stream`, { query: `flood ${i} [[route:direct]]` }, bearer('k2'));
    statuses.push(res.status);
    if (res.status === 429) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ error: { code: 'rate_limited' } });
    } else await readAll(res);
  }
  expect(statuses.filter((s) => s === 200)).toHaveLength(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(35);

  // k1's runs are all still there; k2 has its five admitted runs and no "blocked" ones.
  for (const id of k1Runs) expect(await eventsStatus('k1', id)).toBe(200);
  expect((await listed('k1')).map((r) => r.id).sort()).toEqual([...k1Runs].sort());
  const k2 = await listed('k2');
  expect(k2).toHaveLength(5);
  expect(k2.every((r) => r.status === 'completed')).toBe(true);
  expect(server.parley.engine.retainedRuns).toBe(8);
  // Counted, not stored.
  expect(server.parley.engine.refusedStarts).toEqual({ rate_limit: 35, budget: 0 });
  const refusals = warnings.filter((l) => l.includes('run refused before it started'));
  expect(refusals).toHaveLength(35);
  expect(refusals[0]).toMatch(/"reason":"rate_limit"/);
}, 120_000);

it("retention is fair per caller: k2's admitted runs past the bound push out k2's oldest, never k1's", async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: 'k1,k2', PARLEY_RUN_RETENTION_MAX: '6' });
  const k1Runs = [await runOnce('k1'), await runOnce('k1')];
  const k2Runs: string[] = [];
  for (let i = 0; i < 8; i++) k2Runs.push(await runOnce('k2', `k2 run ${i} [[route:direct]]`));

  for (const id of k1Runs) expect(await eventsStatus('k1', id)).toBe(200);
  // The bound holds overall: 6 retained, k2 keeps its latest 4.
  expect(server.parley.engine.retainedRuns).toBe(6);
  const replayable = [];
  for (const id of k2Runs) replayable.push(await eventsStatus('k2', id));
  expect(replayable).toEqual([404, 404, 404, 404, 200, 200, 200, 200]);
}, 120_000);
