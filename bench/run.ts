/**
 * `npm run bench [-- --only parley|langgraph|floor] [--skip parley-retain1s] [--quick] [--scenario overhead,throughput,…,dynamic,time-travel]`
 * Opt-in, named in full: `--only floor,parley,langgraph,langgraph-durable,parley-pg` (each starts a local Postgres).
 *
 * Runs every (contender, scenario) pair in its own forked process, one after another (the machine
 * has 2 cores: the contender and the scripted model process get one each), then prints the tables
 * and writes bench/results/latest.json. Method and latest figures: docs/performance.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NEEDS_POSTGRES, selectContenders, type ContenderName } from './contenders/index.ts';
import { POSTGRES_MISSING, postgresBinDir } from '../test/support/postgres.ts';
import { SCENARIOS, runJob } from './lib/jobs.ts';
import { buildChecks, buildGoals, renderTables, type BenchResults, type ContenderResults } from './lib/report.ts';
import type { ScenarioGroup } from './lib/worker.ts';
import { benchNode } from './lib/bench-node.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    skip: { type: 'string', multiple: true },
    quick: { type: 'boolean', default: false },
    scenario: { type: 'string', multiple: true },
    out: { type: 'string', default: 'bench/results/latest.json' },
    /** Keep the other contenders' and scenarios' results already in --out; replace only what runs now. */
    merge: { type: 'boolean', default: false },
  },
});
const split = (v: string[] | undefined) =>
  v
    ?.flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
const only = split(values.only);
const scenarioFilter = split(values.scenario) as ScenarioGroup[] | undefined;
const skip = split(values.skip) ?? [];
// Quick mode without --only: the floor, LangGraph.js, Parley in-process and over /stream.
const quickDefault = (n: string) =>
  only?.length || !values.quick || ['floor', 'langgraph', 'parley', 'parley-stream'].includes(n);
const selected = selectContenders(only).filter((n) => !skip.includes(n) && quickDefault(n));
const noPostgres = postgresBinDir() ? [] : selected.filter((n) => NEEDS_POSTGRES.includes(n));
for (const n of noPostgres) console.error(`[bench] ${n} ${POSTGRES_MISSING}`);
const names = selected.filter((n) => !noPostgres.includes(n));
if (names.length === 0) {
  console.error(
    `--only ${only?.join(',')} matches no contender that can run (floor, langgraph, parley, parley-nokg, parley-stream; opt-in: langgraph-durable, parley-pg)`,
  );
  process.exit(2);
}

const runtime = benchNode();
if (runtime.note) console.error(`[bench] ${runtime.note}`);

// Read from node_modules directly: some packages do not export their package.json.
const version = (pkg: string) =>
  (
    JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
const machine = {
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memoryGB: Math.round(os.totalmem() / 1024 ** 3),
  platform: `${os.platform()} ${os.release()}`,
  node: runtime.version,
  commit: (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })(),
  loadavg1mAtStart: Number(os.loadavg()[0]!.toFixed(2)),
  langgraph: version('@langchain/langgraph'),
  'langchain-core': version('@langchain/core'),
  openai: version('openai'),
};

const previous =
  values.merge && existsSync(values.out) ? (JSON.parse(readFileSync(values.out, 'utf8')) as BenchResults) : undefined;
const contenders: Record<string, ContenderResults> = previous?.contenders ?? {};
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
const assemble = (): BenchResults => ({
  date: new Date().toISOString(),
  quick: values.quick,
  machine: { ...machine, loadavg1mAtEnd: Number(os.loadavg()[0]!.toFixed(2)) },
  contenders,
  checks: buildChecks(contenders),
  goals: buildGoals(contenders),
});
const started = performance.now();
for (const name of names) {
  const results: ContenderResults = contenders[name] ?? { description: '', errors: [] };
  results.errors = results.errors.filter((e) => scenarioFilter && !scenarioFilter.some((sc) => e.startsWith(`${sc}:`)));
  contenders[name] = results;
  for (const scenario of SCENARIOS[name as ContenderName]) {
    if (scenarioFilter && !scenarioFilter.includes(scenario)) continue;
    process.stderr.write(`[bench] ${name} · ${scenario} … `);
    const outcome = await runJob({ contender: name, scenario, quick: values.quick }, runtime.path);
    process.stderr.write(`${outcome.ok ? 'done' : 'FAILED'} in ${outcome.seconds.toFixed(1)} s\n`);
    if (!outcome.ok) {
      results.errors.push(`${scenario}: ${outcome.error}`);
      process.stderr.write(`${outcome.error}\n`);
      continue;
    }
    const r = outcome.result as { description?: string };
    if (scenario === 'overhead') results.overhead = outcome.result as ContenderResults['overhead'];
    else if (scenario === 'throughput') results.throughput = outcome.result as ContenderResults['throughput'];
    else if (scenario === 'memory') results.memory = outcome.result as ContenderResults['memory'];
    else if (scenario === 'leak') results.leak = outcome.result as ContenderResults['leak'];
    else if (scenario === 'first-event' && r) results.firstEvent = outcome.result as ContenderResults['firstEvent'];
    // Partial results survive an interrupted run.
    await writeFile(values.out, JSON.stringify(assemble(), null, 2) + '\n');
  }
}

const { loadContender } = await import('./contenders/index.ts');
for (const name of Object.keys(contenders) as ContenderName[]) {
  try {
    contenders[name]!.description = (await loadContender(name)).description;
  } catch (err) {
    contenders[name]!.description = `(not loadable: ${err instanceof Error ? err.message : String(err)})`;
  }
}

const results = assemble();
await writeFile(values.out, JSON.stringify(results, null, 2) + '\n');
console.log(renderTables(results));
console.log(`\nWrote ${values.out} in ${((performance.now() - started) / 1000).toFixed(0)} s total.`);

// Dynamic teams beside the static plan of the same shape (bench/dynamic.ts), in its own process.
if (!scenarioFilter || scenarioFilter.includes('dynamic' as ScenarioGroup)) {
  const quick = values.quick ? ['--runs', '10', '--open', '50'] : [];
  execFileSync(runtime.path, ['--expose-gc', '--import', 'tsx', 'bench/dynamic.ts', ...quick], {
    stdio: 'inherit',
  });
}
// Time travel on a 50-step run (bench/time-travel.ts): listing its checkpoints, reading one, starting a fork.
if (!scenarioFilter || scenarioFilter.includes('time-travel' as ScenarioGroup)) {
  const quick = values.quick ? ['--lists', '5', '--forks', '3'] : [];
  execFileSync(runtime.path, ['--import', 'tsx', 'bench/time-travel.ts', ...quick], { stdio: 'inherit' });
}
const failed =
  Object.values(contenders).some((c) => c.errors.length) ||
  results.checks.sameAnswer.some((s) => !s.equal) ||
  results.checks.modelCalls.some((m) => m.includes('WRONG'));
process.exitCode = failed ? 1 : 0;
