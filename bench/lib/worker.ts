/**
 * Child-process entry: measures one contender in one scenario group in a fresh process (fresh
 * heap, its own JIT state), then sends the result to bench/run.ts over IPC and exits.
 */
import { loadContender, type ContenderName } from '../contenders/index.ts';
import { FULL, QUICK } from './profile.ts';
import { measureFirstEvent } from './scenarios/first-event.ts';
import { measureLeak } from './scenarios/leak.ts';
import { measureMemory } from './scenarios/memory.ts';
import { measureOverhead } from './scenarios/overhead.ts';
import { measureThroughput } from './scenarios/throughput.ts';

export type ScenarioGroup = 'overhead' | 'throughput' | 'memory' | 'leak' | 'first-event';

export interface WorkerJob {
  contender: ContenderName;
  scenario: ScenarioGroup;
  quick: boolean;
}

const job = JSON.parse(process.env.BENCH_JOB ?? '{}') as WorkerJob;
const profile = job.quick ? QUICK : FULL;

async function main(): Promise<unknown> {
  const contender = await loadContender(job.contender);
  switch (job.scenario) {
    case 'overhead':
      return measureOverhead(contender, profile.overhead);
    case 'throughput':
      return measureThroughput(contender, profile.throughput);
    case 'memory':
      return measureMemory(contender, profile.memory);
    case 'leak':
      return measureLeak(contender, profile.leak);
    case 'first-event':
      return measureFirstEvent(contender, profile.firstEvent);
  }
}

main().then(
  (result) => process.send!({ ok: true, result }, () => process.exit(0)),
  (err: unknown) =>
    process.send!({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }, () =>
      process.exit(1),
    ),
);
