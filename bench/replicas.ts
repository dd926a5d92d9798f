/**
 * Replicas on Postgres and Redis (docs/deployment.md, "Replicas"): `npm run bench:replicas`
 *
 * Throughput and per-run latency of a closed loop of --clients clients, each starting an orchestrated
 * run over POST /stream and reading its events to the end, then the next, for --seconds; the scripted
 * model answers every call after --latency ms (L). Cases: one process on the embedded store (the
 * default deployment), then Postgres + Redis with 1, 2 and 3 replicas behind a round-robin proxy (a
 * plain HTTP proxy in this process, new connection per request, as a layer-4 balancer would spread them).
 * Then ACP over HTTP: the latency of a request for a connection sent to the replica holding it, and to
 * the other replica, which passes it on. Then failover: a run executing on replica A is followed on B;
 * A is killed (kill -9); the time until B streams the run's next event is measured, for --lease ms leases.
 * Postgres and Redis are Debian's (`postgresql`, `redis-server`), started on free ports in a temp folder.
 * For each throughput case it also counts what coordination adds per finished run of the timed window
 * (bench/lib/coordination-counters.ts): Redis commands by name, Postgres write transactions, all
 * transactions, rows written; and, over an idle pause before the window, what replicas do with no runs.
 * Options: --clients 8, --seconds 15, --latency 50, --lease 3000, --replicas 1,2,3 (which replica counts);
 * a quick pass: `--seconds 3 --clients 4 --replicas 1`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './lib/stats.ts';
import { counterReader, difference, STATS_SETTLE_MS, sum, type Counters } from './lib/coordination-counters.ts';
import { startPostgres } from '../test/support/postgres.ts';
import { startRedis } from '../test/support/redis.ts';
import { serveProcess, type ServeProcess } from '../test/support/serve-one.ts';
import { roundRobin } from '../test/support/round-robin.ts';
import { readSse } from '../test/support/protocols/sse-read.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '15' },
    latency: { type: 'string', default: '50' },
    lease: { type: 'string', default: '3000' },
    replicas: { type: 'string', default: '1,2,3' },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const latencyMs = values.latency;
const leaseMs = values.lease;
const replicaCounts = values.replicas.split(',').map(Number);

const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `parley-bench-${name}-`));
  dirs.push(dir);
  return dir;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run through POST /stream, read to run.finished; its wall time in ms. */
async function oneRun(url: string, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `Compare the rivers and lakes of region ${i}`, mode: 'orchestrate' }),
  });
  if (res.status !== 200) throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
  for await (const m of readSse(res)) {
    if (m.json.type !== 'run.finished') continue;
    if (m.json.status !== 'completed') throw new Error(`run ended ${m.json.status}: ${m.json.error}`);
    break;
  }
  return performance.now() - t0;
}

async function closedLoop(
  url: string,
  beforeWindow: () => Promise<void>,
): Promise<{ runsPerSecond: number; p50: number; p95: number; runs: number; seconds: number }> {
  // Warm-up: the first runs pay for connections and JIT.
  await Promise.all(Array.from({ length: clients }, (_, i) => oneRun(url, i)));
  await beforeWindow();
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) times.push(await oneRun(url, n++));
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return {
    runsPerSecond: times.length / elapsed,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    runs: times.length,
    seconds: elapsed,
  };
}

const stopAll = async (servers: ServeProcess[]) => {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => s.exit));
};

const baseEnv = {
  PARLEY_SCRIPTED_LATENCY_MS: latencyMs,
  PARLEY_RATE_LIMIT_PER_MINUTE: '100000',
};

const rows: string[] = [];
const report = (name: string, r: Awaited<ReturnType<typeof closedLoop>>) => {
  const line = `${name.padEnd(34)} ${r.runsPerSecond.toFixed(1).padStart(7)} runs/s  p50 ${r.p50.toFixed(0).padStart(5)} ms  p95 ${r.p95.toFixed(0).padStart(5)} ms  (${r.runs} runs)`;
  rows.push(line);
  console.log(line);
};

console.log(
  `bench:replicas — ${clients} clients, closed loop ${seconds} s, orchestrated runs, scripted model L = ${latencyMs} ms; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
);
const pg = await startPostgres();
const redis = await startRedis();
const counters = await counterReader(pg.urlOf('postgres'), redis.url);

const costRows: string[] = [];
/**
 * The closed loop at `url`, with what Redis and Postgres did in its timed window, per finished run.
 * With `coordinated`: first an idle pause of STATS_SETTLE_MS after warm-up (what replicas do with no
 * runs, and Postgres's statistics of the warm-up published), and the same pause after the window
 * before Postgres's statistics are read (Redis commands and write transactions are read at once).
 */
async function measured(name: string, url: string, coordinated: boolean) {
  let idleStart: Counters | undefined;
  let windowStart: Counters | undefined;
  const r = await closedLoop(url, async () => {
    if (coordinated) {
      idleStart = await counters.read();
      await sleep(STATS_SETTLE_MS);
    }
    windowStart = await counters.read();
  });
  const windowEnd = await counters.read();
  if (coordinated) await sleep(STATS_SETTLE_MS);
  const settled = await counters.read();
  report(name, r);
  const atOnce = difference(windowStart!, windowEnd);
  const stats = difference(windowStart!, settled);
  const idle = idleStart ? difference(idleStart, windowStart!) : undefined;
  const per = (x: number) => (x / r.runs).toFixed(1);
  const rows = Object.values(stats.rows);
  const total = (field: 'inserted' | 'updated' | 'deleted') => rows.reduce((a, t) => a + t[field], 0);
  const [inserted, updated, deleted] = [total('inserted'), total('updated'), total('deleted')];
  const byCommand = Object.entries(atOnce.redis)
    .sort((a, b) => b[1] - a[1])
    .map(([c, calls]) => `${c} ${per(calls)}`)
    .join(', ');
  const byTable = Object.entries(stats.rows)
    .sort((a, b) => b[1].inserted + b[1].updated - (a[1].inserted + a[1].updated))
    .map(([t, c]) => `${t} +${per(c.inserted)}/~${per(c.updated)}${c.deleted ? `/-${per(c.deleted)}` : ''}`)
    .join(', ');
  const idleLine = idle
    ? `idle ${(STATS_SETTLE_MS / 1000).toFixed(0)} s with no runs: ${(sum(idle.redis) / (STATS_SETTLE_MS / 1000)).toFixed(1)} Redis commands/s, ${(idle.writeTransactions / (STATS_SETTLE_MS / 1000)).toFixed(1)} write transactions/s`
    : 'no Redis or Postgres in this deployment';
  const lines = [
    `${name} — ${r.runs} runs in ${r.seconds.toFixed(1)} s; per run: Redis ${per(sum(atOnce.redis))} commands, Postgres ${per(atOnce.writeTransactions)} write transactions (${per(stats.transactions)} in all), rows +${per(inserted)} inserted, ~${per(updated)} updated, -${per(deleted)} deleted`,
    `    Redis by command, per run: ${byCommand || '–'}`,
    `    rows by table, per run (+inserted/~updated/-deleted): ${byTable || '–'}`,
    `    ${idleLine}`,
  ];
  costRows.push(...lines);
  for (const l of lines) console.log(l);
}

try {
  {
    const one = await serveProcess(tempDir('embedded'), baseEnv);
    await measured('embedded store, 1 process', one.url, false);
    await stopAll([one]);
  }
  for (const n of replicaCounts) {
    const env = { ...baseEnv, PARLEY_DATABASE_URL: pg.urlOf('postgres'), PARLEY_REDIS_URL: redis.url };
    const replicas: ServeProcess[] = [];
    for (let i = 0; i < n; i++) replicas.push(await serveProcess(tempDir(`replica${i}`), env));
    const proxy = await roundRobin(replicas.map((r) => r.url));
    await measured(`Postgres + Redis, ${n} replica${n > 1 ? 's' : ''} (proxy)`, proxy.url, true);
    proxy.server.close();
    await stopAll(replicas);
  }

  // ACP over HTTP: a request for a connection sent to the replica holding it, and to the other one,
  // which passes it on (src/protocols/acp/replica-forward.ts): the added latency of the extra hop.
  {
    const env = { ...baseEnv, PARLEY_DATABASE_URL: pg.urlOf('postgres'), PARLEY_REDIS_URL: redis.url };
    const a = await serveProcess(tempDir('acp-a'), env);
    const b = await serveProcess(tempDir('acp-b'), env);
    const opened = await fetch(`${a.url}/acp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    });
    const connectionId = opened.headers.get('acp-connection-id')!;
    await opened.body?.cancel();
    const timeRequests = async (url: string) => {
      const times: number[] = [];
      for (let i = 1; i <= 200; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}/acp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'acp-connection-id': connectionId,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'session/list', params: {} }),
        });
        if (res.status >= 300) throw new Error(`ACP request answered ${res.status}`);
        await res.arrayBuffer();
        if (i > 20) times.push(performance.now() - t0); // the first ones warm connections up
      }
      return times;
    };
    const direct = await timeRequests(a.url);
    const passed = await timeRequests(b.url);
    const line = `ACP request, holder vs passed on     p50 ${percentile(direct, 50).toFixed(2)} → ${percentile(passed, 50).toFixed(2)} ms, p95 ${percentile(direct, 95).toFixed(2)} → ${percentile(passed, 95).toFixed(2)} ms (180 requests each)`;
    rows.push(line);
    console.log(line);
    await stopAll([a, b]);
  }

  // Failover: from kill -9 of the replica executing a run to the run's next event on another.
  {
    const env = {
      ...baseEnv,
      PARLEY_SCRIPTED_LATENCY_MS: '300',
      PARLEY_DATABASE_URL: pg.urlOf('postgres'),
      PARLEY_REDIS_URL: redis.url,
      PARLEY_REPLICA_LEASE_MS: leaseMs,
    };
    const a = await serveProcess(tempDir('fail-a'), env);
    const b = await serveProcess(tempDir('fail-b'), env);
    const res = await fetch(`${a.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Compare the rivers and lakes of Europe', mode: 'orchestrate' }),
    });
    const runId = res.headers.get('x-parley-run-id')!;
    const onA = readSse(res);
    for (let m = await onA.next(); !m.done && m.value.json.type !== 'plan.ready'; m = await onA.next());
    const follower = readSse(await fetch(`${b.url}/api/runs/${runId}/events`));
    let lastSeq = 0;
    const killedAt = { t: 0 };
    let resumedAfter = Number.NaN;
    const reading = (async () => {
      for await (const m of follower) {
        if (killedAt.t && m.json.seq > lastSeq) {
          resumedAfter = performance.now() - killedAt.t;
          break;
        }
        lastSeq = m.json.seq;
      }
    })();
    await sleep(200);
    await onA.return(undefined).catch(() => undefined);
    killedAt.t = performance.now();
    a.child.kill('SIGKILL');
    await reading;
    const line = `failover (lease ${leaseMs} ms)                 next event on B ${resumedAfter.toFixed(0)} ms after kill -9 of A`;
    rows.push(line);
    console.log(line);
    await stopAll([b]);
  }
} finally {
  await counters.close();
  await Promise.all([pg.stop(), redis.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
console.log(
  `\n${rows.join('\n')}\n\nwhat coordination adds, per finished run of the timed window:\n${costRows.join('\n')}`,
);
process.exit(0);
