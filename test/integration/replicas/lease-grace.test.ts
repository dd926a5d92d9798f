/**
 * Run leases across two replicas in one process (ReplicaRuns on a real Redis and a real Postgres run
 * store), with the order of events under the test's control: replica A executes a run and renews its
 * lease (its own timer, every third of a lease); replica B sweeps when the test says, on a clock the
 * test moves. A Redis that restarts empty (FLUSHALL here) while A's connection is not back yet must not
 * hand A's run to B (the fresh-clone CI failure of redis-outage.test.ts: A's stream ended at
 * approval.requested); a replica that really stopped still has its runs taken over.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRedisCluster } from '../../../src/cluster/redis.ts';
import type { Cluster } from '../../../src/cluster/types.ts';
import { ReplicaRuns } from '../../../src/graph/replicas/replica-runs.ts';
import { runLeaseKey } from '../../../src/graph/replicas/channels.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { silentLogger } from '../../../src/log.ts';
import { migrate } from '../../../src/store/postgres/migrate.ts';
import { openPool } from '../../../src/store/postgres/pool.ts';
import { openPostgresRunStore } from '../../../src/store/postgres/run-store.ts';
import type { RunStore, StoredRun } from '../../../src/store/runs/run-store.ts';
import { UnavailableError } from '../../../src/unavailable.ts';
import { startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { replicasMissing } from '../../support/replicas.ts';

const missing = replicasMissing();
if (missing) console.log(`lease-grace.test.ts: ${missing}`);

const LEASE_MS = 1_000;

let pgServer: TestPostgres;
let redis: TestRedis;
beforeAll(async () => {
  if (missing) return;
  [pgServer, redis] = await Promise.all([startPostgres(), startRedis()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([pgServer?.stop(), redis?.stop()]);
});

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A replica's part in the test: its ReplicaRuns, what it was asked to do, and the runs it executes. */
interface Replica {
  runs: ReplicaRuns;
  cluster: Cluster;
  executing: Set<string>;
  resumed: string[];
  suspended: string[];
  /** While true, the replica's Redis commands fail as while its connection is down. */
  offline: { value: boolean };
}

async function replica(store: RunStore, prefix: string, now: () => number): Promise<Replica> {
  const real = await openRedisCluster({ url: redis.url, logger: silentLogger, prefix });
  closers.push(() => real.close());
  const offline = { value: false };
  const down = () => Promise.reject(new UnavailableError('redis', 'Redis is unavailable (reconnecting)', 2));
  // The same Cluster, its lease commands failing while "offline" (ioredis still reconnecting).
  const cluster: Cluster = {
    ...real,
    renewLeases: (keys, ttl) => (offline.value ? down() : real.renewLeases(keys, ttl)),
    leaseState: (key) => (offline.value ? down() : real.leaseState(key)),
    acquireLease: (key, ttl) => (offline.value ? down() : real.acquireLease(key, ttl)),
  };
  const executing = new Set<string>();
  const resumed: string[] = [];
  const suspended: string[] = [];
  const runs = new ReplicaRuns({
    cluster,
    store,
    leaseMs: LEASE_MS,
    logger: silentLogger,
    now,
    approvals: new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny' }),
    hooks: {
      isLocal: (id) => executing.has(id),
      localRunning: () => [...executing],
      resume: async (run) => {
        resumed.push(run.id);
        executing.add(run.id);
      },
      cancelLocal: () => false,
      suspendLocal: (id) => {
        suspended.push(id);
        executing.delete(id);
      },
      retainFinished: () => {},
      syncApprovals: () => {},
    },
  });
  closers.push(() => runs.close());
  return { runs, cluster, executing, resumed, suspended, offline };
}

/** A run store on its own schema, a run in it older than a lease, A executing it and B following it. */
async function twoReplicas() {
  const pool: pg.Pool = await openPool({ url: pgServer.url, schema: `t_${randomUUID().replaceAll('-', '')}` });
  await migrate(pool);
  const store = openPostgresRunStore(pool, { closePool: true });
  closers.push(() => store.close());
  // B's clock stands still but when the test moves it; A's lease timer runs on real time.
  let timeB = Date.now();
  const clockB = { now: () => timeB, advance: (ms: number) => (timeB += ms) };
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  const [a, b] = [await replica(store, prefix, Date.now), await replica(store, prefix, clockB.now)];
  const createdAt = Date.now() - 10 * LEASE_MS;
  const run: StoredRun = {
    id: randomUUID(),
    callerId: 'anonymous',
    threadId: randomUUID(),
    status: 'running',
    request: { query: 'Write a.txt' },
    createdAt,
    updatedAt: createdAt,
  };
  await store.runs.put(run);
  a.executing.add(run.id);
  a.runs.started(run, false);
  await vi.waitFor(async () => expect(await a.cluster.leaseState(runLeaseKey(run.id))).toBe('held'), {
    timeout: 5_000,
  });
  return { a, b, run, clockB };
}

async function flushRedis(): Promise<void> {
  const client = new Redis(redis.url);
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
}

describe.skipIf(missing !== undefined)('run leases across replicas', () => {
  it('Redis emptied while the holder reconnects: the other replica waits, the holder takes its lease again', async () => {
    const { a, b, run, clockB } = await twoReplicas();
    // Redis restarts empty; B is back first, A's connection is not yet.
    a.offline.value = true;
    await flushRedis();
    await b.runs.sweep();
    expect(b.resumed, 'a missing lease is not a dead replica').toEqual([]);
    clockB.advance(LEASE_MS / 2);
    await b.runs.sweep();
    expect(b.resumed).toEqual([]);
    // A is back: its next renewal (within a third of a lease) takes the missing lease again.
    a.offline.value = false;
    await vi.waitFor(async () => expect(await b.cluster.leaseState(runLeaseKey(run.id))).toBe('held'), {
      timeout: 5_000,
    });
    clockB.advance(2 * LEASE_MS);
    await b.runs.sweep();
    // A keeps renewing: nothing was lost, nothing moved.
    await new Promise((r) => setTimeout(r, LEASE_MS));
    expect(b.resumed).toEqual([]);
    expect(a.suspended).toEqual([]);
    expect(b.runs.remote(run.id)?.id, 'B follows the run A executes').toBe(run.id);
  });

  it('a holder that is gone: its missing lease is taken over once B has seen it missing for a whole lease', async () => {
    const { a, b, run, clockB } = await twoReplicas();
    // A dies: it renews no more (its lease timer stops; nothing is released).
    a.runs.close();
    await vi.waitFor(async () => expect(await b.cluster.leaseState(runLeaseKey(run.id))).toBe('missing'), {
      timeout: 3 * LEASE_MS,
    });
    await b.runs.sweep();
    expect(b.resumed).toEqual([]);
    clockB.advance(LEASE_MS - 1);
    await b.runs.sweep();
    expect(b.resumed).toEqual([]);
    clockB.advance(1);
    await b.runs.sweep();
    expect(b.resumed).toEqual([run.id]);
    expect(await b.cluster.leaseState(runLeaseKey(run.id))).toBe('held');
  });

  it('a lease released by a replica that stops is taken over at the next sweep', async () => {
    const { a, b, run } = await twoReplicas();
    a.executing.delete(run.id);
    a.runs.ended(run.id, false); // suspended as it is (a rolling deploy): the lease is let go
    await vi.waitFor(async () => expect(await b.cluster.leaseState(runLeaseKey(run.id))).toBe('released'), {
      timeout: 5_000,
    });
    await b.runs.sweep();
    expect(b.resumed).toEqual([run.id]);
  });

  it('a gap in what B saw (its sweep failed) starts its wait again', async () => {
    const { a, b, run, clockB } = await twoReplicas();
    a.offline.value = true;
    await flushRedis();
    await b.runs.sweep(); // missing: seen first now
    b.offline.value = true;
    clockB.advance(LEASE_MS / 2);
    await b.runs.sweep(); // fails: B saw nothing
    b.offline.value = false;
    clockB.advance(LEASE_MS / 2);
    await b.runs.sweep(); // missing again, but not seen missing throughout the lease
    expect(b.resumed).toEqual([]);
    clockB.advance(LEASE_MS);
    await b.runs.sweep();
    expect(b.resumed, 'seen missing for a whole lease since the gap').toEqual([run.id]);
  });
});
