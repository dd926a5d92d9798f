/** Vector retrieval figures: 500 specialists on Kuzu in memory, scripted /v1/embeddings over HTTP (latency 0). */
import { openKuzuStore } from '../src/knowledge/kuzu/store.ts';
import type { SpecialistRecord } from '../src/knowledge/store.ts';
import { withVectorRetrieval } from '../src/knowledge/vector-retrieval.ts';
import { VectorIndex } from '../src/knowledge/vector-index.ts';
import { createEmbedder } from '../src/llm/embeddings.ts';
import { startScriptedModel } from '../src/scripted-model/index.ts';
// The same seeded vocabulary and generator as the knowledge bench (seed 42: the same phrases as before).
import { WORDS, phrase, pick } from './lib/knowledge-records.ts';

const spec = (i: number): SpecialistRecord => ({
  id: `spec-${i}`,
  name: `spec-${i}`,
  description: `Specialist for ${phrase(12)}.`,
  kind: 'prompt',
  domains: [pick(WORDS), pick(WORDS)],
  prompt: 'p',
  endpoint: '',
  modelRole: 'specialist',
  tools: [],
  sourceId: 'skills:bench',
  available: true,
});
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const scripted = await startScriptedModel();
const inner = await openKuzuStore({ path: ':memory:', teamMatchThreshold: 0.8, teamMinSuccessRate: 0.6 });
await inner.upsertSource({
  id: 'skills:bench',
  kind: 'skills',
  location: 'b',
  contentHash: 'x',
  ingestedAt: new Date().toISOString(),
  status: 'ok',
});
const specialists = Array.from({ length: 500 }, (_, i) => spec(i));
await inner.upsertSpecialists(specialists);
const embedder = createEmbedder(
  { model: 'x', baseUrl: `${scripted.url}/v1`, apiKey: 'x', timeoutMs: 30000 },
  'scripted-embed',
  { retry: { maxRetries: 0, baseMs: 10 } },
);
const store = withVectorRetrieval(inner, embedder);

let t = performance.now();
await store.retrieveSpecialists('warm up the index', 7); // embeds all 500
console.log(
  `index build: 500 specialists embedded in ${(performance.now() - t).toFixed(0)} ms (${scripted.requests.length - 1} batch requests + 1 query)`,
);
const queries = Array.from({ length: 200 }, () => phrase(5));
for (const [name, s] of [
  ['text only (Kuzu FTS)', inner],
  ['text + vectors', store],
] as const) {
  const times: number[] = [];
  for (const q of queries) {
    t = performance.now();
    await s.retrieveSpecialists(q, 7);
    times.push(performance.now() - t);
  }
  console.log(`${name}: p50 ${pct(times, 0.5).toFixed(2)} ms, p95 ${pct(times, 0.95).toFixed(2)} ms`);
}
// The brute-force part alone: 500 × 512-d cosine + sort.
const idx = new VectorIndex();
const vecs = await embedder.embed(specialists.map((s) => s.description));
specialists.forEach((s, i) => idx.set(s.id, 'h', vecs[i]!));
const qv = Float32Array.from((await embedder.embed(['docker kubernetes deploy']))[0]!);
const ids = specialists.map((s) => s.id);
const ts: number[] = [];
for (let i = 0; i < 500; i++) {
  t = performance.now();
  idx.nearest(qv, ids, 7);
  ts.push(performance.now() - t);
}
console.log(`cosine top-7 over 500 × 512-d: p50 ${pct(ts, 0.5).toFixed(3)} ms`);
const te: number[] = [];
for (const q of queries) {
  t = performance.now();
  await embedder.embed([q]);
  te.push(performance.now() - t);
}
console.log(`query embedding over HTTP (scripted): p50 ${pct(te, 0.5).toFixed(2)} ms`);
const tp: number[] = [];
for (let i = 0; i < 50; i++) {
  t = performance.now();
  await Promise.all(ids.slice(0, 7).map((id) => inner.getProficiency(id, 'specialist')));
  tp.push(performance.now() - t);
}
console.log(`7 getProficiency reads: p50 ${pct(tp, 0.5).toFixed(2)} ms`);
const tl: number[] = [];
for (let i = 0; i < 50; i++) {
  t = performance.now();
  await inner.listSpecialists();
  tl.push(performance.now() - t);
}
console.log(`listSpecialists (500): p50 ${pct(tl, 0.5).toFixed(2)} ms`);
await inner.close();
await scripted.close();
