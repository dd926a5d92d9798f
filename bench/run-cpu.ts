/**
 * CPU per run, by thread, and a CPU profile of the measured runs only:
 * `node --expose-gc --import tsx bench/run-cpu.ts [--contender parley] [--runs 200] [--warmup 30]
 *  [--fan-out 8] [--profile FILE.cpuprofile] [--paired | --in-flight 100]`
 *
 * Runs one contender of `npm run bench` (bench/contenders/) one run at a time at L = 0 against the
 * scripted model in its own process, after a warm-up, and reads every thread's CPU time from
 * /proc/self/task before and after: the main JavaScript thread, V8's helpers (GC), libuv's pool,
 * LMDB's writer and Kuzu's threads each show apart, which a V8 profile (main thread only) cannot.
 * With --profile, the main thread is profiled over the measured runs only (not start-up, not the
 * warm-up, not teardown); `npx tsx bench/cpu-profile.ts FILE` says which part of Parley it went to.
 * With --in-flight N, the measured runs go N at a time instead (a closed loop, as the bench's throughput
 * scenario): the CPU a run costs when runs overlap, e.g. execution-memory records sharing a write.
 * Linux only (/proc).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CONTENDER_NAMES, NEEDS_POSTGRES, loadContender, type ContenderName } from './contenders/index.ts';
import { POSTGRES_MISSING, postgresBinDir } from '../test/support/postgres.ts';
import { startModelServer } from './lib/model-server.ts';
import { startMainProfile } from './lib/main-profile.ts';

const { values } = parseArgs({
  options: {
    contender: { type: 'string', default: 'parley' },
    runs: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '30' },
    'fan-out': { type: 'string', default: '8' },
    profile: { type: 'string' },
    /** Also run the floor, alternating run by run in this process: the contender's CPU over it, paired. */
    paired: { type: 'boolean', default: false },
    /** Runs this many at a time (closed loop) instead of one after another; not with --paired. */
    'in-flight': { type: 'string', default: '1' },
  },
});
const RUNS = Number(values.runs);
const FAN_OUT = Number(values['fan-out']);
const IN_FLIGHT = Number(values['in-flight']);
if (!(Number.isInteger(IN_FLIGHT) && IN_FLIGHT >= 1)) throw new Error(`--in-flight must be a whole number >= 1`);
if (IN_FLIGHT > 1 && values.paired)
  throw new Error('--in-flight and --paired do not go together (pairs run one at a time)');
const TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** CPU ms of every thread of this process, by thread id, with its name. */
function threadCpu(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
      out.set(tid, { name, ms: ticks / TICKS_PER_MS });
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

/** CPU ms of a whole process (every thread), from /proc/<pid>/stat. */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

const contenderName = values.contender as ContenderName;
if (!CONTENDER_NAMES.includes(contenderName)) {
  console.error(`--contender ${values.contender}: not one of ${CONTENDER_NAMES.join(', ')}`);
  process.exit(2);
}
if (NEEDS_POSTGRES.includes(contenderName) && !postgresBinDir()) {
  console.error(`${contenderName} ${POSTGRES_MISSING}`);
  process.exit(2);
}
const model = await startModelServer(0);
const contender = await loadContender(contenderName);
const instance = await contender.create({ modelUrl: model.baseUrl });
const floor = values.paired ? await (await loadContender('floor')).create({ modelUrl: model.baseUrl }) : undefined;
const cpuOf = async (run: () => Promise<unknown>) => {
  const c0 = process.cpuUsage();
  await run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const deltas: number[] = [];
try {
  for (let i = 0; i < Number(values.warmup); i++) {
    await instance.run(`warm-${i}`, FAN_OUT);
    await floor?.run(`fwarm-${i}`, FAN_OUT);
  }
  global.gc?.();
  const stopProfile = await startMainProfile(values.profile);
  const before = threadCpu();
  const server0 = instance.serverCpuMs?.();
  const model0 = processCpu(model.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < RUNS) await instance.run(`run-${next++}`, FAN_OUT);
  };
  if (IN_FLIGHT > 1) await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  for (let i = 0; IN_FLIGHT === 1 && i < RUNS; i++) {
    // Alternate who goes first, as the bench's overhead scenario does.
    const own = () => cpuOf(() => instance.run(`run-${i}`, FAN_OUT));
    const base = () => cpuOf(() => floor!.run(`frun-${i}`, FAN_OUT));
    if (!floor) await instance.run(`run-${i}`, FAN_OUT);
    else if (i % 2) deltas.push(-(await base()) + (await own()));
    else deltas.push((await own()) - (await base()));
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const after = threadCpu();
  const modelMs = processCpu(model.pid) - model0;
  const serverMs = server0 === undefined ? undefined : instance.serverCpuMs!() - server0;
  await stopProfile();
  const byName = new Map<string, number>();
  for (const [tid, { name, ms }] of after) {
    const spent = ms - (before.get(tid)?.ms ?? 0);
    const label =
      tid === String(process.pid) ? 'main JavaScript thread' : process.env.BENCH_BY_TID ? `${name} ${tid}` : name;
    byName.set(label, (byName.get(label) ?? 0) + spent);
  }
  const mainMs = byName.get('main JavaScript thread') ?? 0;
  // Beside the profile: what it covered, so bench/cpu-profile.ts can give ms per run of CPU (a profile's
  // sample intervals are wall time, longer than the thread's CPU time when the machine is loaded).
  if (values.profile)
    writeFileSync(
      `${values.profile}.json`,
      JSON.stringify({
        contender: contender.name,
        runs: RUNS,
        inFlight: IN_FLIGHT,
        mainThreadMs: mainMs,
        modelMs,
        processMs: (cpu.user + cpu.system) / 1000,
        loadavg: loadavg(),
      }),
    );
  console.log(
    `${contender.name}: ${RUNS} runs, N = ${FAN_OUT}, L = 0, ${IN_FLIGHT} at a time (load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  if (IN_FLIGHT > 1) console.log(`  runs per second     ${((RUNS / wall) * 1000).toFixed(1)}`);
  console.log(`  wall per run        ${(wall / RUNS).toFixed(2)} ms${floor ? ' (with its paired floor run)' : ''}`);
  if (floor) {
    const sorted = [...deltas].sort((a, b) => a - b);
    const mean = deltas.reduce((a, b) => a + b, 0) / deltas.length;
    console.log(
      `  ΔCPU over the floor  median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, mean ${mean.toFixed(2)} ms (paired, ${deltas.length} pairs)`,
    );
  }
  console.log(`  CPU per run         ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(2)} ms (process.cpuUsage)`);
  // Kernel time (sockets, LMDB's background fsyncs): it showed fsync is not where the store's CPU goes.
  console.log(`  of which system     ${(cpu.system / 1000 / RUNS).toFixed(2)} ms`);
  for (const [name, ms] of [...byName].sort((a, b) => b[1] - a[1]))
    if (ms > 0) console.log(`    ${name.padEnd(24)} ${(ms / RUNS).toFixed(2)} ms`);
  // /proc ticks are 10 ms: over a few hundred runs the per-run figure is good to ~0.05 ms.
  // The scripted model shares the machine's two cores: with runs in flight its CPU per run (longer prompts
  // to parse, more tokens to count) bounds the throughput as much as the contender's own.
  console.log(`  scripted model CPU  ${(modelMs / RUNS).toFixed(2)} ms per run (its process, not in the above)`);
  if (serverMs !== undefined)
    console.log(`  Postgres server CPU ${(serverMs / RUNS).toFixed(2)} ms per run (its processes, not in the above)`);
} finally {
  await instance.close();
  await floor?.close();
  await model.close();
}
