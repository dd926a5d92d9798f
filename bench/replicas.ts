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
 * Options: --clients 8, --seconds 15, --latency 50, --lease 3000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './lib/stats.ts';
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
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const latencyMs = values.latency;
const leaseMs = values.lease;

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

async function closedLoop(url: string): Promise<{ runsPerSecond: number; p50: number; p95: number; runs: number }> {
  // Warm-up: the first runs pay for connections and JIT.
  await Promise.all(Array.from({ length: clients }, (_, i) => oneRun(url, i)));
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
try {
  {
    const one = await serveProcess(tempDir('embedded'), baseEnv);
    report('embedded store, 1 process', await closedLoop(one.url));
    await stopAll([one]);
  }
  for (const n of [1, 2, 3]) {
    const env = { ...baseEnv, PARLEY_DATABASE_URL: pg.urlOf('postgres'), PARLEY_REDIS_URL: redis.url };
    const replicas: ServeProcess[] = [];
    for (let i = 0; i < n; i++) replicas.push(await serveProcess(tempDir(`replica${i}`), env));
    const proxy = await roundRobin(replicas.map((r) => r.url));
    report(`Postgres + Redis, ${n} replica${n > 1 ? 's' : ''} (proxy)`, await closedLoop(proxy.url));
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
  await Promise.all([pg.stop(), redis.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
console.log(`\n${rows.join('\n')}`);
process.exit(0);
