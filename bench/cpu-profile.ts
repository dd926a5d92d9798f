/**
 * Where a benchmark's CPU goes:
 * `npx tsx bench/cpu-profile.ts <file.cpuprofile | dir> [--by part|folder|function] [--runs N]
 *  [--base FLOOR.cpuprofile --base-runs M] [--top 25]`
 *
 * Reads V8 CPU profiles (bench/run-cpu.ts --profile, or what `BENCH_NODE_FLAGS="--cpu-prof
 * --cpu-prof-dir=DIR" npm run bench -- …` leaves, one per worker process) and sums their samples by part
 * of the system (default), by source folder, or by function (bench/lib/profile-summary.ts says how).
 * With --runs, figures are ms per run; with --base (another profile, e.g. the floor's, and its --base-runs),
 * a column per run for it and the difference: where a run's CPU over the floor goes, group by group.
 * Only the main JavaScript thread is sampled (bench/run-cpu.ts counts the other threads).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { profilesIn, summarize, type Grouping } from './lib/profile-summary.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    by: { type: 'string', default: 'part' },
    runs: { type: 'string' },
    base: { type: 'string' },
    'base-runs': { type: 'string' },
  },
});
const by = values.by as Grouping;
if (positionals.length === 0 || !['part', 'folder', 'function'].includes(by)) {
  console.error(
    'usage: npx tsx bench/cpu-profile.ts <file.cpuprofile | dir> [--by part|folder|function] [--runs N] [--base F --base-runs M] [--top 25]',
  );
  process.exit(2);
}
/** What bench/run-cpu.ts wrote beside a profile: its runs and its main thread's CPU time. */
interface Sidecar {
  runs: number;
  mainThreadMs: number;
}
const sidecarOf = (file: string): Sidecar | undefined =>
  existsSync(`${file}.json`) ? (JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Sidecar) : undefined;
const ownSide = positionals.length === 1 ? sidecarOf(positionals[0]!) : undefined;
const baseSide = values.base ? sidecarOf(values.base) : undefined;
const runs = Number(values.runs ?? ownSide?.runs ?? 1);
const baseRuns = Number(values['base-runs'] ?? baseSide?.runs ?? values.runs ?? 1);
const perRun = values.runs !== undefined || ownSide !== undefined;
/**
 * Scaled so that the busy samples add up to the thread's measured CPU time when run-cpu.ts left it: a
 * sample's interval is wall time, so on a loaded machine a profile's totals overstate the CPU.
 */
const scaled = (m: Map<string, number>, side: Sidecar | undefined) => {
  if (!side) return m;
  const busy = [...m].reduce((s, [k, us]) => (k === 'idle' ? s : s + us), 0);
  const k = (side.mainThreadMs * 1000) / busy;
  return new Map([...m].map(([g, us]) => [g, g === 'idle' ? us : us * k]));
};
const own = scaled(summarize(positionals.flatMap(profilesIn), by), ownSide);
const base = values.base ? scaled(summarize(profilesIn(values.base), by), baseSide) : undefined;
if (ownSide)
  console.log(
    `scaled to the main thread's CPU measured by bench/run-cpu.ts${base && baseSide ? ' (both profiles)' : ''}`,
  );

const busyOf = (m: Map<string, number>) => [...m].reduce((s, [k, us]) => (k === 'idle' ? s : s + us), 0);
const busy = busyOf(own);
const fmt = (us: number, n: number) => (perRun ? (us / 1000 / n).toFixed(2) : (us / 1000).toFixed(0));
const unit = perRun ? 'ms/run' : 'ms';
console.log(`samples not idle: ${(busy / 1e6).toFixed(2)} s${perRun ? ` over ${runs} runs` : ''}\n`);
const groups = [...new Set([...own.keys(), ...(base?.keys() ?? [])])].filter((g) => g !== 'idle');
const delta = (g: string) => (own.get(g) ?? 0) / runs - (base?.get(g) ?? 0) / baseRuns;
groups.sort((a, b) => (base ? delta(b) - delta(a) : (own.get(b) ?? 0) - (own.get(a) ?? 0)));
const width = Math.max(40, ...groups.map((g) => g.length)) + 2;
const head = [by.padEnd(width), unit.padStart(9), 'of busy'.padStart(8)];
if (base) head.push('base'.padStart(9), 'Δ'.padStart(9));
console.log(head.join(' '));
const shown = by === 'function' ? groups.slice(0, Number(values.top)) : groups;
for (const g of shown) {
  const us = own.get(g) ?? 0;
  const row = [g.padEnd(width), fmt(us, runs).padStart(9), `${((100 * us) / busy).toFixed(1)} %`.padStart(8)];
  if (base) row.push(fmt(base.get(g) ?? 0, baseRuns).padStart(9), fmt(delta(g) * runs, runs).padStart(9));
  console.log(row.join(' '));
}
const total = [''.padEnd(width), fmt(busy, runs).padStart(9), '100 %'.padStart(8)];
if (base)
  total.push(
    fmt(busyOf(base), baseRuns).padStart(9),
    fmt((busy / runs - busyOf(base) / baseRuns) * runs, runs).padStart(9),
  );
console.log(total.join(' '));
