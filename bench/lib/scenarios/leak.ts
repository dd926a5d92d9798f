/**
 * Leak check: many sequential runs at L = 0, heap after a full GC every `sampleEvery` runs, and the
 * least-squares slope of heap over run count after the warm-up (`warmupRuns`, else the first two samples).
 * The warm-up is what V8 needs to finish compiling the code a run calls: over runs 90 -> 300 of a fresh
 * process, ~2 KB per run of Parley's heap growth was compiled code, and after 1,000 runs the same 210 runs
 * grew it by 0.01 MB (docs/performance.md, 2026-12-02 afternoon). A leak keeps growing after it.
 */
import type { Contender } from '../contender.ts';
import { collect } from '../clock.ts';
import { startModelServer } from '../model-server.ts';
import { slope } from '../stats.ts';

export interface LeakParams {
  /** Sequential runs, by contender name. */
  runs: (contender: string) => number;
  sampleEvery: number;
  fanOut: number;
  /** Runs before the first sample counted (a multiple of sampleEvery); default: the first two samples. */
  warmupRuns?: number;
}

export interface LeakResult {
  runs: number;
  fanOut: number;
  /** Runs before the first sample counted. */
  warmupRuns: number;
  samples: { afterRuns: number; heapUsed: number; rss: number }[];
  /** Bytes of heap kept per run (slope after the warm-up samples); ~0 means no growth. */
  slopeBytesPerRun: number;
  /** Heap growth from the first to the last sample after warm-up, in bytes. */
  growthBytes: number;
  /** RSS slope over the same samples (native memory too: Kuzu's in-memory database grows by design). */
  rssSlopeBytesPerRun: number;
  failures: number;
}

export async function measureLeak(contender: Contender, params: LeakParams): Promise<LeakResult> {
  const model = await startModelServer(0);
  const instance = await contender.create({ modelUrl: model.baseUrl });
  const samples: LeakResult['samples'] = [];
  let failures = 0;
  const runs = params.runs(contender.name);
  try {
    for (let i = 0; i < runs; i++) {
      try {
        await instance.run(`leak-${i}`, params.fanOut);
      } catch {
        failures++;
      }
      if ((i + 1) % params.sampleEvery === 0) {
        await collect();
        const mem = process.memoryUsage();
        samples.push({ afterRuns: i + 1, heapUsed: mem.heapUsed, rss: mem.rss });
        // Keep the model's request log (a different process) from growing for the whole benchmark.
        await model.clear();
      }
    }
  } finally {
    await instance.close();
    await model.close();
  }
  const skip = params.warmupRuns !== undefined ? params.warmupRuns / params.sampleEvery - 1 : 2;
  const kept = samples.slice(Math.min(skip, Math.max(0, samples.length - 2)));
  return {
    runs,
    fanOut: params.fanOut,
    warmupRuns: kept[0]?.afterRuns ?? 0,
    samples,
    slopeBytesPerRun: slope(
      kept.map((s) => s.afterRuns),
      kept.map((s) => s.heapUsed),
    ),
    rssSlopeBytesPerRun: slope(
      kept.map((s) => s.afterRuns),
      kept.map((s) => s.rss),
    ),
    growthBytes: kept.length ? kept.at(-1)!.heapUsed - kept[0]!.heapUsed : Number.NaN,
    failures,
  };
}
