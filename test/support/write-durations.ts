/**
 * `npm run test:durations`: writes test/support/durations.json (how long each file took, the estimates
 * test/support/longest-first.ts orders a fresh clone's run by) from test-results/timing.json, the last
 * `npm run test:timing`. Files the timing did not run (a partial run) keep their old estimate; files that
 * no longer exist go. Rounded to 100 ms: an estimate, and a smaller diff.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readEstimates } from './longest-first.ts';

const timing = fileURLToPath(new URL('../../test-results/timing.json', import.meta.url));
const out = fileURLToPath(new URL('./durations.json', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

if (!existsSync(timing)) {
  console.error('no test-results/timing.json: run `npm run test:timing` first');
  process.exit(2);
}
const { rows } = JSON.parse(readFileSync(timing, 'utf8')) as {
  rows: { file: string; project: string; wallMs: number; skipped: number; tests: number }[];
};
const estimates = readEstimates();
let updated = 0;
for (const row of rows) {
  // A file whose tests all skipped (a binary missing here) says nothing of how long it takes where it runs.
  if (row.tests > 0 && row.skipped === row.tests) continue;
  estimates[`${row.project}:${row.file}`] = Math.round(row.wallMs / 100) * 100;
  updated++;
}
const kept = Object.fromEntries(
  Object.entries(estimates)
    .filter(([key]) => existsSync(root + key.slice(key.indexOf(':') + 1)))
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(out, JSON.stringify(kept, null, 2) + '\n');
console.log(`test/support/durations.json: ${updated} files from the last timing, ${Object.keys(kept).length} in all`);
