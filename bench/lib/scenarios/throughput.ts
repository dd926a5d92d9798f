/**
 * Throughput: a closed loop keeping K runs in flight (a new run starts when one ends) until a fixed
 * number of runs is done; runs/s over the whole trial, and each run's own time against 4·L.
 */
import type { Contender, ContenderInstance } from '../contender.ts';
import { describeError, now, progress } from '../clock.ts';
import { startModelServer } from '../model-server.ts';
import { percentile, summarize, type Summary } from '../stats.ts';

export interface ThroughputParams {
  latencies: number[];
  inFlight: number[];
  fanOut: number;
  /** Runs per trial, given the number in flight. */
  runsPerTrial: (inFlight: number) => number;
  /** Runs of the warm-up trial (same number in flight, capped by this). */
  warmupRuns: (inFlight: number) => number;
  trials: number;
}

export interface ThroughputResult {
  latencyMs: number;
  inFlight: number;
  fanOut: number;
  runsPerTrial: number;
  criticalPathMs: number;
  runsPerSec: Summary;
  /** Median of each trial's run times, summarized over trials. */
  runMsMedian: Summary;
  runMsP99: Summary;
  /** Median run time / (the contender's stages · L) − 1 (goal at L = 50, 1,000 in flight: ≤ 10%). */
  medianOverCriticalPath: number | null;
  modelCalls: { expected: number; observed: number; ok: boolean };
  failures: number;
  /** A few distinct failure messages, when runs failed. */
  errors: string[];
}

async function closedLoop(instance: ContenderInstance, tag: string, inFlight: number, total: number, fanOut: number) {
  const durations: number[] = [];
  let started = 0;
  let failures = 0;
  const errors = new Set<string>();
  const lane = async () => {
    while (started < total) {
      const id = `${tag}-${started++}`;
      const t0 = now();
      try {
        await instance.run(id, fanOut);
        durations.push(now() - t0);
      } catch (err) {
        failures++;
        if (errors.size < 3) errors.add(describeError(err));
      }
    }
  };
  const t0 = now();
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return { durations, failures, errors, elapsedMs: now() - t0 };
}

export async function measureThroughput(contender: Contender, params: ThroughputParams): Promise<ThroughputResult[]> {
  const results: ThroughputResult[] = [];
  for (const latencyMs of params.latencies) {
    const model = await startModelServer(latencyMs);
    const instance = await contender.create({ modelUrl: model.baseUrl });
    try {
      for (const inFlight of params.inFlight) {
        const total = params.runsPerTrial(inFlight);
        const warmup = params.warmupRuns(inFlight);
        await closedLoop(instance, `tpw-${latencyMs}-${inFlight}`, Math.min(inFlight, warmup), warmup, params.fanOut);
        const rates: number[] = [];
        const medians: number[] = [];
        const p99s: number[] = [];
        let calls = 0;
        let failures = 0;
        const errors = new Set<string>();
        for (let t = 0; t < params.trials; t++) {
          await model.clear();
          const trial = await closedLoop(instance, `tp-${latencyMs}-${inFlight}-${t}`, inFlight, total, params.fanOut);
          calls += await model.length();
          failures += trial.failures;
          for (const e of trial.errors) errors.add(e);
          rates.push(trial.durations.length / (trial.elapsedMs / 1000));
          progress(
            `throughput L=${latencyMs} K=${inFlight} trial ${t}: ${rates.at(-1)!.toFixed(1)} runs/s, ${trial.failures} failed`,
          );
          medians.push(percentile(trial.durations, 50));
          p99s.push(percentile(trial.durations, 99));
        }
        await model.clear();
        const expected = contender.expectedModelCalls(params.fanOut);
        const critical = contender.criticalStages * latencyMs;
        const runMsMedian = summarize(medians);
        results.push({
          latencyMs,
          inFlight,
          fanOut: params.fanOut,
          runsPerTrial: total,
          criticalPathMs: critical,
          runsPerSec: summarize(rates),
          runMsMedian,
          runMsP99: summarize(p99s),
          medianOverCriticalPath: critical > 0 ? runMsMedian.median / critical - 1 : null,
          modelCalls: {
            expected: expected * total * params.trials,
            observed: calls,
            ok: calls === expected * total * params.trials,
          },
          failures,
          errors: [...errors].slice(0, 5),
        });
      }
    } finally {
      await instance.close();
      await model.close();
    }
  }
  return results;
}
