/**
 * Memory per in-flight run: R runs held open by a slow model (L = 2 s per call), heap and RSS
 * after a full GC, sampled through the run's stages, minus a baseline taken after a warm-up.
 * The peak delta divided by R is the figure; it includes the HTTP sockets and SDK state every
 * contender pays (the floor shows that part).
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
    // Sample mid-way through each model stage (and one more for a longer critical path).
    const samples: MemorySample[] = [];
    for (let stage = 0; stage < 5; stage++) {
      const target = t0 + params.latencyMs * (stage + 0.5);
      await sleep(Math.max(0, target - now()));
      if (completed + failures === params.runs) break;
      await collect();
      const mem = process.memoryUsage();
      const logged = await slow.entries();
      samples.push({
        atMs: now() - t0,
        heapUsed: mem.heapUsed - baseline.heapUsed,
        rss: mem.rss - baseline.rss,
        modelCallsInFlight: logged.filter((e) => e.finishedAt === undefined).length,
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
