/**
 * Heap a contender's runs leave behind: `node --expose-gc --import tsx bench/heap-growth.ts [--contender parley]
 * [--warmup 100] [--runs 300]`. Runs the contender (bench/contenders/) one run at a time at L = 0, N = 8
 * against the scripted model in its own process, takes `heapUsed` after full GCs (with pauses between,
 * so finalizers and deferred writes settle) after the warm-up and again after `runs` more, and prints the
 * growth: the quick bench's leak figure, alone and in seconds.
 */
import { parseArgs } from 'node:util';
import { loadContender, type ContenderName } from './contenders/index.ts';
import { startModelServer } from './lib/model-server.ts';

const { values } = parseArgs({
  options: {
    contender: { type: 'string', default: 'parley' },
    warmup: { type: 'string', default: '100' },
    runs: { type: 'string', default: '300' },
  },
});
const RUNS = Number(values.runs);

const settledHeap = async () => {
  for (let i = 0; i < 4; i++) {
    global.gc?.();
    await new Promise((r) => setTimeout(r, 300));
  }
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

const model = await startModelServer(0);
const contender = await (await loadContender(values.contender as ContenderName)).create({ modelUrl: model.baseUrl });
try {
  for (let i = 0; i < Number(values.warmup); i++) await contender.run(`warm-${i}`, 8);
  const before = await settledHeap();
  for (let i = 0; i < RUNS; i++) await contender.run(`run-${i}`, 8);
  const after = await settledHeap();
  console.log(
    `${values.contender}: heap growth over ${RUNS} runs after ${values.warmup} of warm-up: ` +
      `${((after - before) / 1e6).toFixed(2)} MB (${((after - before) / RUNS).toFixed(0)} B/run)`,
  );
} finally {
  await contender.close();
  await model.close();
}
