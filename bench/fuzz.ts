/**
 * `npm run fuzz`: the long version of test/integration/server/fuzz.test.ts. Same server, same
 * endpoint table and generators (test/support/fuzz/), many more requests: FUZZ_RUNS in total
 * (default 10,000), spread over the endpoint table, then a table of counts by endpoint and
 * status, every distinct failure with its shrunk counterexample, and the heap before and after.
 *
 *   npm run fuzz                          10,000 requests, a random seed
 *   FUZZ_RUNS=50000 FUZZ_SEED=42 npm run fuzz
 *   FUZZ_ONLY="POST /a2a,ALL /mcp" npm run fuzz     only these rows of the table
 *
 * Exit code 1 when a failure was found, /health stopped answering, a run was created, or the heap
 * after a full GC ended more than FUZZ_HEAP_TOLERANCE_MB (default 24) above its start.
 */
import { ENDPOINTS } from '../test/support/fuzz/endpoints.ts';
import {
  failureReport,
  fuzzEndpoint,
  settledHeap,
  startFuzzTarget,
  tallyTable,
  type Failure,
} from '../test/support/fuzz/harness.ts';

const total = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const tolerance = Number(process.env.FUZZ_HEAP_TOLERANCE_MB ?? 24) * 2 ** 20;
const only = process.env.FUZZ_ONLY?.split(',').map((s) => s.trim());
const endpoints = only ? ENDPOINTS.filter((e) => only.includes(e.id)) : ENDPOINTS;
if (endpoints.length === 0)
  throw new Error(`FUZZ_ONLY matches no row of the endpoint table: ${ENDPOINTS.map((e) => e.id).join(', ')}`);
/** Requests per batch: /health is checked between batches. */
const BATCH = 250;

const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;
const started = Date.now();
const target = await startFuzzTarget();
const heapAtStart = await settledHeap();
const failures: Failure[] = [];
const problems: string[] = [];
let sent = 0;
let batch = 0;

console.log(`fuzz: ${total} requests over ${endpoints.length} endpoints, seed ${seed}, server ${target.url}`);
// Round-robin batches, so every endpoint gets its share and /health is asked between them.
const perEndpoint = Math.ceil(total / endpoints.length);
const done = new Map<string, number>();
while (sent < total) {
  let progressed = false;
  for (const [i, endpoint] of endpoints.entries()) {
    const already = done.get(endpoint.id) ?? 0;
    if (already >= perEndpoint || sent >= total) continue;
    const run = await fuzzEndpoint(target, endpoint, {
      numRuns: Math.min(BATCH, perEndpoint - already),
      timeLimitMs: 10 * 60_000,
      seed: seed + i * 100_000 + batch * 1000,
      maxFailures: 20,
    });
    const fresh = run.failures.filter((f) => !failures.some((g) => g.signature === f.signature));
    failures.push(...fresh);
    for (const f of fresh) console.log(`  FAIL ${f.signature}`);
    done.set(endpoint.id, already + Math.max(1, run.requests));
    sent += run.requests;
    progressed = true;
    if (!(await target.healthy())) problems.push(`/health did not answer after the batch for ${endpoint.id}`);
  }
  batch += 1;
  console.log(
    `  … ${sent} requests, ${failures.length} distinct failures, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  if (!progressed) break;
}

const runs = target.parley.engine.retainedRuns;
const stored = (await target.parley.store.listRuns({ limit: 1000 })).length;
const heapAtEnd = await settledHeap();
if (runs > 0 || stored > 0) problems.push(`runs created: ${runs} in the engine, ${stored} in the store`);
if (heapAtEnd - heapAtStart > tolerance)
  problems.push(`heap grew ${mb(heapAtEnd - heapAtStart)} (tolerance ${mb(tolerance)})`);

console.log(
  `\n## Requests by endpoint and status (seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s)\n\n${tallyTable(target.tally)}`,
);
console.log(
  `\nheap after a full GC: ${mb(heapAtStart)} at the start, ${mb(heapAtEnd)} at the end; runs retained ${runs}, stored ${stored}`,
);
console.log(`\n## ${failures.length} distinct failures\n\n${failureReport(failures) || '(none)'}`);
if (problems.length) console.log(`\n## Other problems\n\n${problems.map((p) => `- ${p}`).join('\n')}`);
await target.close();
process.exit(failures.length || problems.length ? 1 : 0);
