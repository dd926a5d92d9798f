/**
 * Calibration of the execution memory's relevance threshold (issue 43 §4; docs/learning.md, "Execution
 * memory: relevance before recall"): `npm run bench:memory-relevance`. Reads the labelled pairs of
 * bench/memory-relevance/pairs.json (an earlier run's request and a later request, related or not),
 * scores each with the measure the memory search uses (src/knowledge/memory-relevance.ts), and prints,
 * for the chosen threshold and the thresholds around it, the false-inclusion rate (unrelated pairs that
 * would enter a prompt) and the false-exclusion rate (related pairs that would not), then the rates per
 * kind of pair and every pair the chosen threshold gets wrong. Deterministic: no model, no store.
 */
import { MEMORY_MIN_RELEVANCE } from '../src/knowledge/memory-relevance.ts';
import { labelledPairs, ratesAt, scorePairs } from './memory-relevance/rates.ts';

const scored = scorePairs(labelledPairs());
const related = scored.filter((p) => p.related);
const unrelated = scored.filter((p) => !p.related);
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1).padStart(5)}% (${n}/${of})`;

console.log(`${scored.length} pairs: ${related.length} related, ${unrelated.length} unrelated`);
console.log(`chosen threshold: ${MEMORY_MIN_RELEVANCE}\n`);
console.log('threshold | false inclusion (unrelated let in) | false exclusion (related left out)');
const steps = new Set([0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, MEMORY_MIN_RELEVANCE]);
for (const t of [...steps].sort((a, b) => a - b)) {
  const r = ratesAt(t, scored);
  const mark = t === MEMORY_MIN_RELEVANCE ? ' <- chosen' : '';
  console.log(
    `${t.toFixed(2).padStart(9)} | ${pct(r.falseInclusion, r.unrelated).padStart(34)} | ${pct(r.falseExclusion, r.related).padStart(33)}${mark}`,
  );
}

// The measure before issue 43: BM25 score ÷ the best hit's, so with one earlier run in memory any pair
// sharing a word (of the requests alone here; the answers shared more) had relevance 1 and was let in.
const sharing = unrelated.filter((p) => p.shared.length > 0).length;
console.log(
  `\nbefore (score / best score, the earlier run alone in memory): ${pct(sharing, unrelated.length)} unrelated let in`,
);

console.log(`\nper kind at ${MEMORY_MIN_RELEVANCE}:`);
console.log(`${'kind'.padEnd(28)} | pairs | wrong | mean relevance`);
for (const kind of [...new Set(scored.map((p) => p.kind))]) {
  for (const isRelated of [true, false]) {
    const of = scored.filter((p) => p.kind === kind && p.related === isRelated);
    if (of.length === 0) continue;
    const r = ratesAt(MEMORY_MIN_RELEVANCE, of);
    const mean = of.reduce((s, p) => s + p.relevance, 0) / of.length;
    const label = `${kind} (${isRelated ? 'related' : 'unrelated'})`;
    console.log(
      `${label.padEnd(28)} | ${String(of.length).padStart(5)} | ${String(r.falseInclusion + r.falseExclusion).padStart(5)} | ${mean.toFixed(2)}`,
    );
  }
}

console.log(`\npairs ${MEMORY_MIN_RELEVANCE} gets wrong:`);
for (const p of scored) {
  const included = p.relevance >= MEMORY_MIN_RELEVANCE;
  if (included === p.related) continue;
  console.log(
    `  ${included ? 'let in   ' : 'left out '} ${p.relevance.toFixed(2)} [${p.kind}] "${p.earlier}" -> "${p.later}" (shared: ${p.shared.join(', ') || 'none'})`,
  );
}
