/**
 * Memory per in-flight run: R runs held open by a slow model (L = 2 s per call), heap and RSS
 * after a full GC, sampled through the runs' life, minus a baseline taken after a warm-up.
 * The peak delta divided by R is the figure; it includes the HTTP sockets and SDK state every
 * contender pays (the floor shows that part). Also reported: the heap per run at the sample with
 * the most model calls in flight (the fan-out, where a run holds the most).
 */
import type { Contender } from '../contender.ts';
import { collect, describeError, now, sleep } from '../clock.ts';
import { startModelServer } from '../model-server.ts';

export interface MemoryParams {
  runs: number;
  latencyMs: number;
  fanOut: number;
  warmupRuns: number;
}

export interface MemorySample {
  atMs: number;
  heapUsed: number;
  rss: number;
  modelCallsInFlight: number;
}

export interface MemoryResult {
  runs: number;
  latencyMs: number;
  fanOut: number;
  baseline: { heapUsed: number; rss: number };
  samples: MemorySample[];
  /** Peak (heap after GC − baseline) / runs, in bytes. */
  heapPerRun: number;
  rssPerRun: number;
  /** Model calls in flight when the heap peaked (runs × N means every run was inside its fan-out). */
  callsInFlightAtPeak: number;
  /** Heap delta / runs at the sample with the most model calls in flight, and that count. */
  atMostInFlight: { heapPerRun: number; rssPerRun: number; callsInFlight: number };
  completed: number;
  failures: number;
  errors: string[];
}

export async function measureMemory(contender: Contender, params: MemoryParams): Promise<MemoryResult> {
  const slow = await startModelServer(0);
  const instance = await contender.create({ modelUrl: slow.baseUrl });
  try {
    // Warm the code paths (and the connection pool) against an instant model, then slow it down.
    for (let i = 0; i < params.warmupRuns; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => instance.run(`memw-${i + j}`, params.fanOut)));
    }
    await slow.setLatency(params.latencyMs);
    await slow.clear();
    await collect();
    await sleep(200);
    await collect();
    const base = process.memoryUsage();
    const baseline = { heapUsed: base.heapUsed, rss: base.rss };

    let completed = 0;
    let failures = 0;
    const errors = new Set<string>();
    const t0 = now();
    const all = Promise.all(
      Array.from({ length: params.runs }, (_, i) =>
        instance.run(`mem-${i}`, params.fanOut).then(
          () => void completed++,
          (err: unknown) => {
            failures++;
            if (errors.size < 3) errors.add(describeError(err));
          },
        ),
      ),
    );
    // Sample (after a full GC) every L/8 until every run is done: heap, RSS and how many model
    // calls are in flight at that moment, so the figure can be read against where the runs are.
    const samples: MemorySample[] = [];
    const every = Math.max(250, params.latencyMs / 8);
    let done = false;
    void all.then(() => (done = true));
    while (!done) {
      await sleep(every);
      if (done) break;
      await collect();
      const mem = process.memoryUsage();
      samples.push({
        atMs: now() - t0,
        heapUsed: mem.heapUsed - baseline.heapUsed,
        rss: mem.rss - baseline.rss,
        modelCallsInFlight: await slow.inFlight(),
      });
    }
    await all;
    return {
      runs: params.runs,
      latencyMs: params.latencyMs,
      fanOut: params.fanOut,
      baseline,
      samples,
      heapPerRun: Math.max(...samples.map((s) => s.heapUsed)) / params.runs,
      callsInFlightAtPeak: samples.reduce((a, b) => (b.heapUsed > a.heapUsed ? b : a)).modelCallsInFlight,
      atMostInFlight: ((m) => ({
        heapPerRun: m.heapUsed / params.runs,
        rssPerRun: m.rss / params.runs,
        callsInFlight: m.modelCallsInFlight,
      }))(samples.reduce((a, b) => (b.modelCallsInFlight > a.modelCallsInFlight ? b : a))),
      rssPerRun: Math.max(...samples.map((s) => s.rss)) / params.runs,
      completed,
      failures,
      errors: [...errors],
    };
  } finally {
    await instance.close();
    await slow.close();
  }
}
