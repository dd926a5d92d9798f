/**
 * Kuzu beside Neo4j on the same knowledge workload (issue 45; docs/knowledge.md "Running on Neo4j"):
 * `npm run bench:knowledge-backends -- [--scales=1000,10000,100000] [--backends=kuzu,neo4j] [--budget-s=1500]`.
 *
 * Each backend is filled with runs of 8 steps (100 recordRun calls in flight, as the engine makes them
 * under load: the group commit batches them) up to each scale, and at each scale it measures:
 *  - record a run: 100 more recordRun calls one at a time (latency p50/p95);
 *  - retrieval: top-7 of 500 specialists for 200 queries (p50/p95);
 *  - team lookup: findTeamConfig for 50 recorded queries (p50/p95);
 *  - reads that go to the database, not the view: listRuns (50 newest) and getRun (one run and its steps).
 * Kuzu runs on a database file in a temporary folder (as shipped); Neo4j on the test harness
 * (test/support/neo4j.ts: Neo4j in its own JVM on 127.0.0.1, Bolt, 2 GB heap, 512 MB page cache).
 * A scale is skipped, saying so, once a backend has used up its time budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKuzuStore } from '../src/knowledge/kuzu/store.ts';
import { openNeo4jStore } from '../src/knowledge/neo4j/store.ts';
import type { KnowledgeStore } from '../src/knowledge/store.ts';
import { neo4jMissing, startNeo4j } from '../test/support/neo4j.ts';
import { SPECIALISTS, STEPS, percentile, phrase, runRecord, specialist } from './lib/knowledge-records.ts';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const SCALES = arg('scales', '1000,10000,100000').split(',').map(Number);
const BACKENDS = arg('backends', 'kuzu,neo4j').split(',');
const BUDGET_MS = Number(arg('budget-s', '1500')) * 1000;
const IN_FLIGHT = 100;

interface Opened {
  store: KnowledgeStore;
  label: string;
  close(): Promise<void>;
}

async function openBackend(name: string): Promise<Opened | string> {
  if (name === 'kuzu') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-bench-kuzu-'));
    const store = await openKuzuStore({ path: join(dir, 'knowledge.kuzu') });
    return {
      store,
      label: 'Kuzu 0.11.3 (file, in-process)',
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const missing = neo4jMissing();
  if (missing) return `Neo4j ${missing}`;
  const server = await startNeo4j({ heapMb: 2048, pageCacheMb: 512 });
  const store = await openNeo4jStore({
    uri: server.uri,
    user: server.user,
    password: server.password,
    database: server.database,
  });
  return {
    store,
    label: `Neo4j ${server.version} (test harness, Bolt on 127.0.0.1)`,
    close: async () => {
      await store.close();
      await server.stop();
    },
  };
}

const timed = async (n: number, call: (i: number) => Promise<unknown>): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    out.push(performance.now() - t);
  }
  return out;
};
const fmt = (xs: number[]) => `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 95).toFixed(1)}`;

async function benchBackend(name: string): Promise<void> {
  const opened = await openBackend(name);
  if (typeof opened === 'string') {
    console.log(`${name}: ${opened}`);
    return;
  }
  const { store } = opened;
  const started = performance.now();
  try {
    await store.upsertSpecialists(Array.from({ length: SPECIALISTS }, (_, i) => specialist(i)));
    console.log(`\n${opened.label}, node ${process.version}; ms p50 / p95`);
    console.log(
      '| runs | fill (runs/s, 100 in flight) | record a run | retrieve top-7 | team lookup | listRuns 50 | getRun |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    let filled = 0;
    const queries: string[] = [];
    for (const scale of SCALES) {
      if (performance.now() - started > BUDGET_MS) {
        console.log(
          `| ${scale} | not measured: the ${BUDGET_MS / 1000} s budget was used up at ${filled} runs | | | | | |`,
        );
        continue;
      }
      const fillFrom = filled;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (filled < scale) {
            const r = runRecord(filled++, 'fill');
            if (queries.length < 50) queries.push(r.query);
            await store.recordRun(r);
          }
        }),
      );
      const fillRate = (scale - fillFrom) / ((performance.now() - t) / 1000);
      const record = await timed(100, (i) => store.recordRun(runRecord(i, `one-at-${scale}`)));
      const retrieve = await timed(200, () => store.retrieveSpecialists(phrase(6), 7));
      const team = await timed(50, (i) => store.findTeamConfig(queries[i % queries.length]!, { callerId: 'bench' }));
      const list = await timed(20, () => store.listRuns({ limit: 50 }));
      const get = await timed(50, (i) => store.getRun(`fill-${(i * 7919) % scale}`));
      console.log(
        `| ${scale} | ${fillRate.toFixed(0)} | ${fmt(record)} | ${fmt(retrieve)} | ${fmt(team)} | ${fmt(list)} | ${fmt(get)} |`,
      );
    }
    console.log(`(${STEPS} steps a run; ${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  } finally {
    await opened.close();
  }
}

for (const backend of BACKENDS) await benchBackend(backend);
