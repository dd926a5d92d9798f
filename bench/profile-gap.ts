/**
 * Where Parley's CPU over the floor goes, by part and by source folder:
 * `npm run bench:profile [-- --runs 300 --in-flight 1,100 --out /tmp/parley-profile]`
 *
 * For each in-flight setting, runs bench/run-cpu.ts twice in fresh processes, Parley then the floor (same
 * workload: L = 0, N = 8, the scripted model in its own process), each with the main thread profiled over
 * the measured runs, and prints each process's CPU per run by thread and the difference of the two
 * profiles (bench/cpu-profile.ts --base), scaled to the main thread's measured CPU time. The profiles stay
 * in --out for `npx tsx bench/cpu-profile.ts FILE --by function`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '300' },
    'in-flight': { type: 'string', default: '1,100' },
    out: { type: 'string', default: '/tmp/parley-profile' },
    contender: { type: 'string', default: 'parley' },
  },
});
mkdirSync(values.out, { recursive: true });
const node = process.execPath;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
for (const inFlight of values['in-flight'].split(',').map(Number)) {
  const runs = inFlight > 1 ? Math.max(Number(values.runs), 6 * inFlight) : Number(values.runs);
  const files: Record<string, string> = {};
  for (const contender of [values.contender, 'floor']) {
    const file = join(values.out, `${contender}-${inFlight}.cpuprofile`);
    files[contender] = file;
    const args = ['--expose-gc', '--import', 'tsx', 'bench/run-cpu.ts', '--contender', contender];
    args.push('--runs', String(runs), '--warmup', String(inFlight > 1 ? 100 : 50), '--in-flight', String(inFlight));
    args.push('--profile', file);
    process.stdout.write(execFileSync(node, args, { encoding: 'utf8' }));
  }
  for (const by of ['part', 'folder']) {
    console.log(`\n${values.contender} over the floor, main thread, ${inFlight} in flight, by ${by} (load ${load()})`);
    const args = [
      '--import',
      'tsx',
      'bench/cpu-profile.ts',
      files[values.contender]!,
      '--base',
      files.floor!,
      '--by',
      by,
    ];
    process.stdout.write(execFileSync(node, args, { encoding: 'utf8' }));
  }
}
