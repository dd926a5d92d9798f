/**
 * Knowledge store figures on Kuzu: `node --expose-gc --import tsx bench/knowledge.ts [--file] [--in-flight=100]`.
 *  - time to record 1,000 runs of 8 steps each, one at a time (steps with tool calls; proficiency
 *    and TeamConfig statistics updated per run, as in production)
 *  - time to record 1,000 more with --in-flight (default 100) recordRun calls pending at once, as
 *    the engine makes them under load (the store's group commit writes them in batches)
 *  - retrieval latency (p50/p95) over 500 specialists, 200 queries
 * --file uses a database file in a temp folder instead of :memory:.
 * --checkpoint-threshold=<bytes> overrides the store's WAL checkpoint threshold (16777216 is Kuzu's
 * own default, to compare native memory growth with it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKuzuStore } from '../src/knowledge/kuzu/store.ts';
import { CHECKPOINT_THRESHOLD_BYTES } from '../src/knowledge/kuzu/session.ts';
import { SPECIALISTS, STEPS, percentile, phrase, runRecord, specialist } from './lib/knowledge-records.ts';

const RUNS = 1000;
const QUERIES = 200;

async function main(): Promise<void> {
  const onFile = process.argv.includes('--file');
  const dir = onFile ? mkdtempSync(join(tmpdir(), 'parley-bench-')) : undefined;
  const thresholdArg = process.argv.find((a) => a.startsWith('--checkpoint-threshold='));
  const checkpointThresholdBytes = thresholdArg ? Number(thresholdArg.split('=')[1]) : undefined;
  const everyArg = process.argv.find((a) => a.startsWith('--checkpoint-every='));
  const checkpointEveryWrites = everyArg ? Number(everyArg.split('=')[1]) : undefined;
  const inFlightArg = process.argv.find((a) => a.startsWith('--in-flight='));
  const inFlight = inFlightArg ? Number(inFlightArg.split('=')[1]) : 100;
  const store = await openKuzuStore({
    path: dir ? join(dir, 'knowledge.kuzu') : ':memory:',
    checkpointThresholdBytes,
    checkpointEveryWrites,
  });
  try {
    const specialists = Array.from({ length: SPECIALISTS }, (_, i) => specialist(i));
    let t = performance.now();
    await store.upsertSpecialists(specialists);
    const upsertMs = performance.now() - t;

    const runs = Array.from({ length: RUNS }, (_, i) => runRecord(i));
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    t = performance.now();
    for (const r of runs) await store.recordRun(r);
    const recordMs = performance.now() - t;
    globalThis.gc?.();
    const rssPerRunKb = (process.memoryUsage().rss - rssBefore) / RUNS / 1024;
    const heapPerRunKb = (process.memoryUsage().heapUsed - heapBefore) / RUNS / 1024;

    // The same number of runs again, `inFlight` recordRun calls pending at once (a closed loop).
    const more = Array.from({ length: RUNS }, (_, i) => runRecord(i, 'concurrent'));
    globalThis.gc?.();
    const rssBeforeConcurrent = process.memoryUsage().rss;
    t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(inFlight, RUNS) }, async () => {
        while (next < more.length) await store.recordRun(more[next++]!);
      }),
    );
    const concurrentMs = performance.now() - t;
    globalThis.gc?.();
    const rssPerRunConcurrentKb = (process.memoryUsage().rss - rssBeforeConcurrent) / RUNS / 1024;

    const latencies: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const q = phrase(6);
      const t0 = performance.now();
      await store.retrieveSpecialists(q, 7);
      latencies.push(performance.now() - t0);
    }
    const teamLatencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await store.findTeamConfig(runs[i]!.query);
      teamLatencies.push(performance.now() - t0);
    }

    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    const threshold = `${checkpointThresholdBytes ?? CHECKPOINT_THRESHOLD_BYTES} B${checkpointThresholdBytes === undefined ? ', the store default' : ''}${checkpointEveryWrites ? `, CHECKPOINT every ${checkpointEveryWrites} writes` : ''}`;
    console.log(
      `Kuzu knowledge store (${onFile ? 'file' : ':memory:'}, checkpoint threshold ${threshold}), node ${process.version}`,
    );
    console.log(`upsert ${SPECIALISTS} specialists:           ${fmt(upsertMs)}`);
    console.log(`record ${RUNS} runs x ${STEPS} steps:          ${fmt(recordMs)} (${fmt(recordMs / RUNS)} per run)`);
    console.log(
      `memory growth while recording:     RSS ${rssPerRunKb.toFixed(1)} KiB, JS heap ${heapPerRunKb.toFixed(1)} KiB per run${globalThis.gc ? '' : ' (run with node --expose-gc for a heap figure after GC)'}`,
    );
    console.log(
      `record ${RUNS} more, ${inFlight} in flight:       ${fmt(concurrentMs)} (${fmt(concurrentMs / RUNS)} per run, ${(RUNS / (concurrentMs / 1000)).toFixed(0)} runs/s; RSS ${rssPerRunConcurrentKb.toFixed(1)} KiB per run)`,
    );
    console.log(
      `retrieve top-7 of ${SPECIALISTS} (${QUERIES} queries): p50 ${fmt(percentile(latencies, 50))}, p95 ${fmt(percentile(latencies, 95))}`,
    );
    console.log(`findTeamConfig over ${RUNS} runs' teams (50 queries): p50 ${fmt(percentile(teamLatencies, 50))}`);
  } finally {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
