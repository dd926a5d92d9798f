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
    warmup: (l) => (l === 0 ? 50 : 3),
    trials: (l) => (l === 0 ? 150 : 15),
  },
  throughput: {
    latencies: [0, 50],
    inFlight: [100, 1000],
    fanOut: 8,
    runsPerTrial: (k) => Math.max(300, k),
    warmupRuns: (k) => Math.min(k, 200),
    trials: 2,
  },
  memory: { runs: 1000, latencyMs: 2000, fanOut: 8, warmupRuns: 300 },
  // Parley with the default 10-minute retention grows by design (every finished run stays
  // replayable); 2,000 runs show its slope, parley-retain1s runs the 10,000 of the leak test.
  leak: { runs: (name) => (name === 'parley' ? 2000 : 10_000), sampleEvery: 500, fanOut: 8 },
  firstEvent: { latencyMs: 50, fanOut: 8, warmup: 5, trials: 30 },
};

/** Quick: every figure once, small (1,000 in flight and the 10,000-run leak test are full-mode only). */
export const QUICK: Profile = {
  overhead: {
    latencies: [0, 50],
    fanOuts: [8],
    warmup: (l) => (l === 0 ? 20 : 2),
    trials: (l) => (l === 0 ? 30 : 4),
  },
  throughput: {
    latencies: [0, 50],
    inFlight: [100],
    fanOut: 8,
    runsPerTrial: () => 150,
    warmupRuns: () => 30,
    trials: 1,
  },
  memory: { runs: 200, latencyMs: 500, fanOut: 8, warmupRuns: 50 },
  // 300 runs measured after 300 of warm-up: V8 is still compiling what a run calls for the first few hundred
  // (scenarios/leak.ts); the figure is what the runs keep, not the code they warm up.
  leak: { runs: () => 600, sampleEvery: 30, fanOut: 8, warmupRuns: 300 },
  firstEvent: { latencyMs: 50, fanOut: 8, warmup: 2, trials: 5 },
};
