/**
 * A Postgres restart under load (issue 31, docs/durability.md "When the store fails"): two replicas,
 * 112 runs started on both, `pg_ctl restart -m fast` while they run. Every write a run makes is retried
 * in order while the database is away, so afterwards every run's stored event log is 1..n with no hole,
 * ends with exactly one run.finished, and holds every event its client was told; no run is left running.
 */
import { describe, expect, it, vi } from 'vitest';
import pgModule from 'pg';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { follow, replicasMissing, useReplicas } from '../../../support/replicas.ts';

const missing = replicasMissing();
if (missing) console.log(`postgres-restart.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 300_000 });

const { replica, restartPostgres, databaseUrl } = useReplicas('parley-pg-restart');
const RUNS = 112;

describe.skipIf(missing !== undefined)('a Postgres restart under load', () => {
  it('leaves every run’s stored events contiguous, every run finished once, nothing a client was told missing', async () => {
    const env = { PARLEY_SCRIPTED_LATENCY_MS: '150', PARLEY_RATE_LIMIT_PER_MINUTE: '10000' };
    const [a, b] = await Promise.all([replica(env), replica(env)]);
    const started: { runId: string; stream: ReturnType<typeof follow> }[] = [];
    const refused: number[] = [];
    const start = async (i: number) => {
      const url = i % 2 === 0 ? a.url : b.url;
      const body =
        i % 3 === 0
          ? { query: `What is river number ${i}?`, mode: 'direct' }
          : { query: `Compare the lakes of region ${i} [[steps:2]]`, mode: 'orchestrate' };
      const res = await postJson(`${url}/stream`, body);
      if (res.status !== 200) {
        refused.push(res.status);
        await res.body?.cancel();
        return;
      }
      started.push({ runId: res.headers.get('x-parley-run-id')!, stream: follow(res) });
    };
    let restartedAt = 0;
    let restartMs = 0;
    const waves = 4;
    for (let w = 0; w < waves; w++) {
      const wave = Array.from({ length: RUNS / waves }, (_, k) => start(w * (RUNS / waves) + k));
      if (w === 1) {
        // The restart lands while the first waves are mid-flight and the second is being started.
        await new Promise((r) => setTimeout(r, 300));
        restartedAt = Date.now();
        await restartPostgres();
        restartMs = Date.now() - restartedAt;
      }
      await Promise.all(wave);
    }
    await Promise.all(started.map((s) => s.stream.done));
    console.log(
      `postgres-restart.test.ts: ${started.length} runs started, ${refused.length} refused (${[...new Set(refused)].join(',') || 'none'}); pg_ctl restart took ${restartMs} ms`,
    );
    // Whatever was refused was refused as an outage (503), never a 500.
    expect(refused.filter((s) => s !== 503)).toEqual([]);
    expect(started.length).toBeGreaterThanOrEqual(100);

    // Every client saw its run end once, with consecutive seqs.
    // A stream cut short (its replica gave the run up to the other under load, a lease lapsing) is
    // followed on where a client would: Last-Event-ID on the other replica.
    for (const s of started.filter((s) => !s.stream.events.some((e) => e.type === 'run.finished'))) {
      console.log(`postgres-restart.test.ts: ${s.runId} ended without run.finished; reconnecting`);
      const after = s.stream.events.at(-1)?.seq ?? 0;
      const again = follow(
        await fetch(`${b.url}/api/runs/${s.runId}/events`, { headers: { 'last-event-id': String(after) } }),
      );
      await again.done;
      s.stream.events.push(...again.events);
    }
    for (const { stream } of started) {
      expect(stream.state.error).toBeUndefined();
      expect(stream.events.filter((e) => e.type === 'run.finished')).toHaveLength(1);
      expect(stream.events.map((e) => e.seq)).toEqual(stream.events.map((_, n) => n + 1));
    }

    // The store: wait until every queued write is committed (retries after the restart), then check.
    const db = new pgModule.Client({ connectionString: databaseUrl() });
    await db.connect();
    try {
      const ids = started.map((s) => s.runId);
      await vi.waitFor(
        async () => {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM parley_runs WHERE id = ANY($1) AND status <> 'running'`,
            [ids],
          );
          expect(rows[0]!.n).toBe(ids.length);
        },
        { timeout: 60_000, interval: 500 },
      );
      const { rows } = await db.query<{ run_id: string; seqs: number[]; types: string[] }>(
        `SELECT run_id, array_agg(seq ORDER BY seq) AS seqs, array_agg(event->>'type' ORDER BY seq) AS types
         FROM parley_run_events WHERE run_id = ANY($1) GROUP BY run_id`,
        [ids],
      );
      const stored = new Map(rows.map((r) => [r.run_id, r]));
      const statuses = new Map<string, number>();
      for (const { runId, stream } of started) {
        const log = stored.get(runId);
        expect(log, runId).toBeDefined();
        expect(log!.seqs, runId).toEqual(log!.seqs.map((_, n) => n + 1));
        expect(
          log!.types.filter((t) => t === 'run.finished'),
          runId,
        ).toHaveLength(1);
        expect(log!.types.at(-1), runId).toBe('run.finished');
        // Everything the client was told is stored under the same seq.
        expect(log!.types.slice(0, stream.events.length), runId).toEqual(stream.events.map((e) => e.type));
        const end = stream.events.at(-1) as GraphEvent & { type: 'run.finished' };
        statuses.set(end.status, (statuses.get(end.status) ?? 0) + 1);
      }
      console.log(`postgres-restart.test.ts: run endings ${JSON.stringify(Object.fromEntries(statuses))}`);
    } finally {
      await db.end();
    }
    // The replicas retried (and said so), and nothing is degraded once the database is back.
    expect(a.log() + b.log()).toMatch(/run store: .* failed; retrying/);
    for (const s of [a, b]) {
      await vi.waitFor(async () => expect((await fetch(`${s.url}/ready`)).status).toBe(200), { timeout: 30_000 });
    }
  });
});
