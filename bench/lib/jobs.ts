/** Which scenario groups each contender runs, and running one job in a forked worker process. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ContenderName } from '../contenders/index.ts';
import type { ScenarioGroup, WorkerJob } from './worker.ts';

export const SCENARIOS: Record<ContenderName, ScenarioGroup[]> = {
  floor: ['overhead', 'throughput', 'memory', 'leak'],
  langgraph: ['overhead', 'throughput', 'memory', 'leak'],
  parley: ['overhead', 'throughput', 'memory', 'leak', 'first-event'],
  'parley-nokg': ['overhead', 'throughput', 'memory', 'leak'],
  // Finished runs stay replayable for 10 min by default; this separates that retention from a leak.
  'parley-retain1s': ['leak'],
  // Over HTTP the figures of interest are the single-run overhead and the time to first event.
  'parley-stream': ['overhead', 'first-event'],
  // Opt-in (issue 32): the durable backends side by side.
  'langgraph-durable': ['overhead', 'throughput'],
  'parley-pg': ['overhead', 'throughput'],
};

const workerEntry = fileURLToPath(new URL('./worker.ts', import.meta.url));

export interface JobOutcome {
  job: WorkerJob;
  ok: boolean;
  result?: unknown;
  error?: string;
  seconds: number;
}

/**
 * Runs one job in a fresh `node --expose-gc --import tsx` process (extra node flags from BENCH_NODE_FLAGS), on
 * `execPath` (bench-node.ts: the runtime Parley ships on) or this process's Node.
 */
export function runJob(job: WorkerJob, execPath = process.execPath): Promise<JobOutcome> {
  const started = performance.now();
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return new Promise((resolve) => {
    const child = fork(workerEntry, [], {
      execPath,
      execArgv: ['--expose-gc', '--import', 'tsx', ...extra],
      env: { ...process.env, BENCH_JOB: JSON.stringify(job) },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let reply: { ok: boolean; result?: unknown; error?: string } | undefined;
    child.on('message', (msg: typeof reply) => (reply = msg));
    child.on('exit', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      if (reply) resolve({ job, ...reply, seconds });
      else resolve({ job, ok: false, error: `worker exited with ${signal ?? code} before reporting`, seconds });
    });
  });
}
