/**
 * How much each scenario runs, in full and in --quick mode. Full mode follows the issue's
 * parameters; quick mode keeps every figure but with fewer trials (and says so in the output).
 */
import type { FirstEventParams } from './scenarios/first-event.ts';
import type { LeakParams } from './scenarios/leak.ts';
import type { MemoryParams } from './scenarios/memory.ts';
import type { OverheadParams } from './scenarios/overhead.ts';
import type { ThroughputParams } from './scenarios/throughput.ts';

export interface Profile {
  overhead: OverheadParams;
  throughput: ThroughputParams;
  memory: MemoryParams;
  leak: LeakParams;
  firstEvent: FirstEventParams;
}

export const FULL: Profile = {
  overhead: {
    latencies: [0, 50],
    fanOuts: [4, 8, 16],
    warmup: (l) => (l === 0 ? 200 : 5),
    trials: (l) => (l === 0 ? 300 : 30),
  },
  throughput: { latencies: [0, 50], inFlight: [100, 1000], fanOut: 8, runsPerTrial: (k) => 5 * k, trials: 3 },
  memory: { runs: 1000, latencyMs: 2000, fanOut: 8, warmupRuns: 500 },
  leak: { runs: 10_000, sampleEvery: 500, fanOut: 8 },
  firstEvent: { latencyMs: 50, fanOut: 8, warmup: 5, trials: 30 },
};

export const QUICK: Profile = {
  overhead: {
    latencies: [0, 50],
    fanOuts: [8],
    warmup: (l) => (l === 0 ? 100 : 2),
    trials: (l) => (l === 0 ? 100 : 5),
  },
  throughput: { latencies: [0, 50], inFlight: [100, 1000], fanOut: 8, runsPerTrial: (k) => 2 * k, trials: 1 },
  memory: { runs: 1000, latencyMs: 1000, fanOut: 8, warmupRuns: 200 },
  leak: { runs: 2000, sampleEvery: 250, fanOut: 8 },
  firstEvent: { latencyMs: 50, fanOut: 8, warmup: 2, trials: 10 },
};
