/**
 * Heap a contender's runs leave behind: `node --expose-gc --import tsx bench/heap-growth.ts [--contender parley]
 * [--warmup 100] [--runs 300]`. Runs the contender (bench/contenders/) one run at a time at L = 0, N = 8
 * against the scripted model in its own process, takes `heapUsed` after full GCs (after the deferred
 * execution-memory writes' window, with pauses between so finalizers settle) after the warm-up and again
 * after `runs` more, and prints the growth: the quick bench's leak figure, alone and in seconds. `--snapshots DIR` also writes a heap snapshot at
 * both points (after the GCs), for `npx tsx bench/heap-diff.ts DIR/before.heapsnapshot DIR/after.heapsnapshot`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { MEMORY_DEFER_MS } from '../src/graph/durable/record-end.ts';
import { loadContender, type ContenderName } from './contenders/index.ts';
import { startModelServer } from './lib/model-server.ts';

const { values } = parseArgs({
  options: {
    contender: { type: 'string', default: 'parley' },
    warmup: { type: 'string', default: '100' },
    runs: { type: 'string', default: '300' },
    snapshots: { type: 'string' },
  },
});
const RUNS = Number(values.runs);

/**
 * heapUsed once what the last runs left in flight has settled: a finished run's execution-memory record
 * waits up to MEMORY_DEFER_MS (2 s) for the next Kuzu transaction (at most 256 wait), so without this wait
 * the records of the last runs were counted or not depending on how fast those runs went. Waiting the
 * window out measures what the runs leave behind, not what is still on its way to the store.
 */
const settledHeap = async () => {
  await new Promise((r) => setTimeout(r, MEMORY_DEFER_MS + 500));
  for (let i = 0; i < 4; i++) {
    global.gc?.();
    await new Promise((r) => setTimeout(r, 300));
  }
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

/** Writing a snapshot allocates; it is taken after the heap figure is read, and the heap settles again after it. */
const snapshot = (name: string) => {
  if (!values.snapshots) return;
  mkdirSync(values.snapshots, { recursive: true });
  writeHeapSnapshot(join(values.snapshots, `${name}.heapsnapshot`));
};

const model = await startModelServer(0);
const contender = await (await loadContender(values.contender as ContenderName)).create({ modelUrl: model.baseUrl });
try {
  for (let i = 0; i < Number(values.warmup); i++) await contender.run(`warm-${i}`, 8);
  let before = await settledHeap();
  if (values.snapshots) {
    snapshot('before');
    before = await settledHeap();
  }
  for (let i = 0; i < RUNS; i++) await contender.run(`run-${i}`, 8);
  const after = await settledHeap();
  snapshot('after');
  console.log(
    `${values.contender}: heap growth over ${RUNS} runs after ${values.warmup} of warm-up: ` +
      `${((after - before) / 1e6).toFixed(2)} MB (${((after - before) / RUNS).toFixed(0)} B/run)`,
  );
} finally {
  await contender.close();
  await model.close();
}
