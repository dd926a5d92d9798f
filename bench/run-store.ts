/**
 * `npx tsx bench/run-store.ts`: what checkpointing a run costs, and the embedded store decision
 * (docs/durability.md). For each candidate, one plan step's writes as the engine makes them — its
 * events (step.started, usage, tool.started, tool.finished, step.finished with lineage) appended to the
 * run's event log plus the step's checkpoint — awaited until committed, timed in CPU (process.cpuUsage,
 * all threads) and wall time per step; the median of many steps. Then RSS after opening the store and
 * after writing every step. LMDB: the RunStore as shipped (src/store/runs/lmdb/). Kuzu: the same rows
 * as nodes of a Kuzu database (the database Parley already has), one prepared CREATE per row. Postgres
 * (when Debian's server binaries are there): the RunStore of PARLEY_DATABASE_URL (src/store/postgres/)
 * against a local server started as the tests start it (test/support/postgres.ts: fsync off, so wall
 * time is the round trips, not the disk); its CPU column is Parley's process only, not the server's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kuzu from 'kuzu';
import { openKv } from '../src/store/kv.ts';
import { openLmdbRunStore } from '../src/store/runs/lmdb/lmdb-run-store.ts';
import type { RunStore } from '../src/store/runs/run-store.ts';
import { migrate } from '../src/store/postgres/migrate.ts';
import { openPool } from '../src/store/postgres/pool.ts';
import { openPostgresRunStore } from '../src/store/postgres/run-store.ts';
import { postgresBinDir, startPostgres } from '../test/support/postgres.ts';

const STEPS = Number(process.env.STEPS ?? 400);
const lineage = {
  durationMs: 812,
  usage: { inputTokens: 812, outputTokens: 230, cachedTokens: 0, costUsd: 0.0012, modelCalls: 2, toolCalls: 1 },
  toolCalls: [{ toolCallId: 's1-call_0', tool: 'filesystem/write_file', status: 'ok' }],
  sources: ['tool:filesystem/write_file'],
};
const output = 'A finished step writes a paragraph or two of findings. '.repeat(20);

function stepEvents(runId: string, step: number, seq: number) {
  const at = new Date().toISOString();
  const stepId = `s${step}`;
  return [
    { type: 'step.started', stepId, specialist: 'researcher', objective: 'Survey the options', attempt: 1 },
    { type: 'usage', usage: lineage.usage },
    { type: 'tool.started', stepId, toolCallId: `${stepId}-c`, tool: 'filesystem/write_file', args: { path: 'x' } },
    {
      type: 'tool.finished',
      stepId,
      toolCallId: `${stepId}-c`,
      tool: 'filesystem/write_file',
      status: 'ok',
      result: 'ok',
      durationMs: 3,
    },
    { type: 'step.finished', stepId, specialist: 'researcher', status: 'succeeded', output, lineage },
  ].map((e, i) => ({ ...e, runId, seq: seq + i, at }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

interface Writer {
  step(runId: string, step: number, seq: number): Promise<void>;
  close(): Promise<void>;
}

async function measure(name: string, open: (dir: string) => Promise<Writer>) {
  const dir = mkdtempSync(join(tmpdir(), `parley-bench-store-${name}-`));
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const writer = await open(dir);
  const rssOpen = process.memoryUsage().rss;
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const runId = `run-${Math.floor(i / 5)}`;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await writer.step(runId, (i % 5) + 1, (i % 5) * 5 + 1);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    store: name,
    steps: STEPS,
    cpuMsPerStepMedian: Math.round(median(cpu) * 1000) / 1000,
    wallMsPerStepMedian: Math.round(median(wall) * 1000) / 1000,
    rssAddedOpenMb: mb(rssOpen - rss0),
    rssAddedAfterWritesMb: mb(rssAfter - rss0),
  };
}

const lmdb = (dir: string): Promise<Writer> => Promise.resolve(runStoreWriter(openLmdbRunStore(openKv(dir))));

const postgres = async (): Promise<Writer> => {
  const server = await startPostgres();
  const pool = await openPool({ url: server.url });
  await migrate(pool);
  const writer = runStoreWriter(openPostgresRunStore(pool));
  return { step: writer.step, close: () => writer.close().then(() => server.stop()) };
};

function runStoreWriter(store: RunStore): Writer {
  return {
    async step(runId, step, seq) {
      const events = stepEvents(runId, step, seq);
      // As the engine does: one append per event, the checkpoint with the step, awaited together.
      await Promise.all([
        ...events.map((e) => store.events.append(runId, [e])),
        store.checkpoints.saveStep(runId, { stepId: `s${step}`, step: { id: `s${step}` }, outcome: events.at(-1) }),
      ]);
    },
    close: () => store.close(),
  };
}

const kuzuStore = async (dir: string): Promise<Writer> => {
  const db = new kuzu.Database(join(dir, 'runs.kuzu'));
  const conn = new kuzu.Connection(db);
  await conn.query('CREATE NODE TABLE RunEvent(key STRING, runId STRING, seq INT64, body STRING, PRIMARY KEY(key))');
  await conn.query('CREATE NODE TABLE StepCheckpoint(key STRING, runId STRING, body STRING, PRIMARY KEY(key))');
  const putEvent = await conn.prepare('CREATE (:RunEvent {key: $key, runId: $runId, seq: $seq, body: $body})');
  const putStep = await conn.prepare('MERGE (s:StepCheckpoint {key: $key}) SET s.runId = $runId, s.body = $body');
  return {
    async step(runId, step, seq) {
      const events = stepEvents(runId, step, seq);
      for (const e of events)
        await conn.execute(putEvent, { key: `${runId}/${e.seq}`, runId, seq: e.seq, body: JSON.stringify(e) });
      await conn.execute(putStep, { key: `${runId}/s${step}`, runId, body: JSON.stringify(events.at(-1)) });
    },
    async close() {
      await conn.close();
      await db.close();
    },
  };
};

const only = process.env.STORES?.split(',');
const wanted = (name: string) => !only || only.includes(name);
const results = [];
if (wanted('lmdb')) results.push(await measure('lmdb', lmdb));
// Postgres before Kuzu: starting the server's processes after a Kuzu database was closed in this
// process crashed it (SIGSEGV, seen here with kuzu 0.11.3).
if (wanted('postgres')) {
  if (postgresBinDir()) results.push(await measure('postgres', postgres));
  else console.log('postgres: skipped (no server binaries; install the Debian package postgresql)');
}
if (wanted('kuzu')) results.push(await measure('kuzu', kuzuStore));
console.table(results);
// Explicitly: with Kuzu and pg both loaded, letting the process wind down by itself crashed it at exit.
process.exit(0);
