/**
 * The execution memory's window (src/knowledge/run-memory.ts) with answers like a model's rather than the
 * benchmark workload's: `node --expose-gc --import tsx bench/memory-window.ts [--runs 8000] [--window 5000]`.
 * Records `runs` runs (15-word queries, 300-word answers drawn from a 20,000-word vocabulary, common words
 * far more often than rare ones), so the last runs - window push earlier ones out, then prints the heap and
 * the typed-array memory the window holds after a full GC, the time a record takes, and the time a search
 * (k = 3, one caller) takes over the full window, plain and held to MEMORY_MIN_RELEVANCE (what the memory
 * node asks: every hit's request is compared with the query). Deterministic: the same runs every time.
 */
import { parseArgs } from 'node:util';
import { RunMemoryIndex } from '../src/knowledge/run-memory.ts';
import { MEMORY_MIN_RELEVANCE } from '../src/knowledge/memory-relevance.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '8000' }, window: { type: 'string', default: '5000' } },
});
const RUNS = Number(values.runs);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

let seed = 7;
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
const word = () => vocabulary[Math.floor(Math.pow(rand(), 3) * vocabulary.length)]!;
const text = (words: number) => Array.from({ length: words }, word).join(' ');

gc();
const before = process.memoryUsage();
const window = new RunMemoryIndex(Number(values.window));
const t0 = performance.now();
for (let i = 0; i < RUNS; i++) {
  window.record({
    id: `run-${i}`,
    callerId: 'c1',
    query: text(15),
    answer: text(300),
    score: 0.9,
    startedAt: new Date(1_700_000_000_000 + i).toISOString(),
  });
}
const recordMs = (performance.now() - t0) / RUNS;
const queries = Array.from({ length: 300 }, () => text(15));
for (const q of queries.slice(0, 30)) window.search(q, 3, 'c1');
const t1 = performance.now();
for (const q of queries) window.search(q, 3, 'c1');
const searchMs = (performance.now() - t1) / queries.length;
const t2 = performance.now();
for (const q of queries) window.search(q, 3, 'c1', MEMORY_MIN_RELEVANCE);
const heldMs = (performance.now() - t2) / queries.length;
// Array buffers' memory is given back by a sweep after the GC: settle twice before reading it.
for (let i = 0; i < 2; i++) {
  gc();
  await new Promise((r) => setTimeout(r, 200));
}
gc();
const after = process.memoryUsage();
const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;
console.log(
  `${window.size} runs in the window after ${RUNS}: heap ${mb(after.heapUsed - before.heapUsed)}, typed arrays ` +
    `${mb(after.arrayBuffers - before.arrayBuffers)}; record ${recordMs.toFixed(3)} ms, search ${searchMs.toFixed(3)} ms, held to the threshold ${heldMs.toFixed(3)} ms`,
);
