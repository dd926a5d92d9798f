/**
 * How many LMDB commits a run costs, and what each one holds:
 * `node --expose-gc --import tsx bench/lmdb-commits.ts [--runs 40] [--warmup 10] [--fan-out 8] [--in-flight 1] [--trace]`
 *
 * Runs the `parley` contender's engine (bench/contenders/parley-engine.ts: the run store behind its write
 * queue and the thread store, as shipped) against the scripted model at L = 0, `--in-flight` runs at a time
 * in a closed loop (a new run starts as one ends, as the bench's throughput scenario), and counts the commits
 * of the LMDB environment (its `aftercommit` event) over the measured runs. Every write the stores make is
 * labelled by what it is (an event, a step checkpoint, the run's record, a thread turn, …) and charged to the
 * next commit, so the output is the commits per run and the kinds of commit (which writes shared one), most
 * frequent first; `--trace` prints every commit in order. Also runs/s and CPU per run (process.cpuUsage),
 * which PARLEY_BENCH_RUN_STORE=off gives without the stores. A debugging aid: nothing of it ships.
 */
import { parseArgs } from 'node:util';
import { createBenchEngine } from './contenders/parley-engine.ts';
import { startModelServer } from './lib/model-server.ts';
import { workloadQuery } from './lib/workload.ts';
import { startMainProfile } from './lib/main-profile.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    warmup: { type: 'string', default: '10' },
    'fan-out': { type: 'string', default: '8' },
    'in-flight': { type: 'string', default: '1' },
    /** Print every commit of the measured runs in order (use with few runs). */
    trace: { type: 'boolean', default: false },
    /** Profile the main thread over the measured runs (read it with bench/cpu-profile.ts). */
    profile: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const FAN_OUT = Number(values['fan-out']);
const IN_FLIGHT = Number(values['in-flight']);

const model = await startModelServer(0);
const bench = await createBenchEngine({ modelUrl: model.baseUrl, knowledgeWrites: true });
const kv = bench.kv;

/** What was written since the last commit, by label. */
let pending = new Map<string, number>();
let counting = false;
let inTransaction = 0;
const commits = new Map<string, number>();
let commitCount = 0;
/** ms between commits seen by JavaScript. */
const gaps: number[] = [];
let lastCommitAt = 0;
const note = (label: string) => {
  if (counting) pending.set(label, (pending.get(label) ?? 0) + 1);
};

const labelOf = (name: string, key: unknown): string => {
  if (name === 'run-checkpoints')
    return Array.isArray(key) && key[1] === 'plan' ? 'plan checkpoint' : 'step checkpoint';
  if (name === 'run-events') return 'event';
  if (name === 'runs') return 'run record';
  return name;
};

const names = [
  'runs',
  'run-checkpoints',
  'run-events',
  'run-approvals',
  'run-approval-runs',
  'threads',
  'thread-turns',
];
for (const name of kv ? names : []) {
  const db = kv!.db(name) as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['put', 'remove', 'putSync', 'removeSync']) {
    const original = db[method]!.bind(db);
    db[method] = (...args: unknown[]) => {
      if (!inTransaction) note(`${labelOf(name, args[0])}${method.startsWith('remove') ? ' removed' : ''}`);
      return original(...args);
    };
  }
  const transaction = db.transaction!.bind(db);
  db.transaction = (action: unknown) => {
    note(name === 'threads' ? 'thread turn (transaction)' : `${name} transaction`);
    return transaction(() => {
      inTransaction++;
      try {
        return (action as () => unknown)();
      } finally {
        inTransaction--;
      }
    });
  };
}
const env = kv?.db('runs') as unknown as
  { on(event: 'aftercommit', cb: () => void): void; getStats(): { lastTxnId: number } } | undefined;
/** The environment's last transaction id: counts every commit, whatever JavaScript saw of it. */
const lastTxnId = () => env?.getStats().lastTxnId ?? 0;
env?.on('aftercommit', () => {
  if (!counting) return;
  commitCount++;
  const at = performance.now();
  if (lastCommitAt) gaps.push(at - lastCommitAt);
  lastCommitAt = at;
  const signature =
    [...pending]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([label, n]) => (n > 1 ? `${label} ×${n}` : label))
      .join(' + ') || '(nothing labelled)';
  if (values.trace) console.log(`  commit ${commitCount}: ${signature}`);
  const shape = signature.replace(/ ×\d+/g, ' ×n');
  commits.set(shape, (commits.get(shape) ?? 0) + 1);
  pending = new Map();
});

const run = async (runId: string) => {
  const handle = bench.engine.start({ runId, query: workloadQuery(FAN_OUT), mode: 'orchestrate', protocol: 'bench' });
  for await (const _ of handle.events());
  await handle.result;
};
const closedLoop = async (prefix: string, n: number) => {
  let next = 0;
  const worker = async () => {
    while (next < n) await run(`${prefix}-${next++}`);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, n) }, worker));
};

try {
  await closedLoop('warm', Number(values.warmup));
  await bench.engine.recorded();
  global.gc?.();
  const stopProfile = await startMainProfile(values.profile);
  counting = true;
  const txn0 = lastTxnId();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await closedLoop('run', RUNS);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await stopProfile();
  // The execution-memory records wait up to 2 s; their "remembered" notes are commits of these runs too.
  await bench.engine.recorded();
  await new Promise((r) => setTimeout(r, 100));
  counting = false;
  const txns = lastTxnId() - txn0;
  console.log(`parley: ${RUNS} runs, N = ${FAN_OUT}, L = 0, ${IN_FLIGHT} in flight${kv ? '' : ', no run store'}`);
  console.log(`  runs/s                ${((RUNS / wall) * 1000).toFixed(1)}`);
  console.log(`  CPU per run           ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(2)} ms (to the last result)`);
  console.log(
    `  LMDB commits per run  ${(txns / RUNS).toFixed(2)} (${txns} transactions; ${commitCount} seen by aftercommit)`,
  );
  const sorted = [...gaps].sort((a, b) => a - b);
  const q = (p: number) => (sorted.length ? sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(1) : '–');
  console.log(`  ms between commits    p50 ${q(0.5)}, p90 ${q(0.9)}, max ${q(1)}`);
  for (const [shape, n] of [...commits].sort((a, b) => b[1] - a[1]))
    console.log(`  ${(n / RUNS).toFixed(2).padStart(6)} per run  ${shape}`);
} finally {
  await bench.close();
  await model.close();
}
