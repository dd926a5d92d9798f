/**
 * Overhead per run: one run at a time, wall time minus the run's critical path, at each latency and
 * fan-out. The critical path is (sequential model stages) · L, the stages counted at the scripted
 * model's log (each non-specialist call is a stage, the specialists together one): 4 for the
 * shared workload. Also from the model's clock: time the run spent outside the model server.
 */
import type { Contender, ContenderInstance } from '../contender.ts';
import { floor as floorContender } from '../../contenders/floor.ts';
import { now } from '../clock.ts';
import { startModelServer, outsideModelMs, type LogEntry } from '../model-server.ts';
import { checkOutcome, type OutcomeCheck } from '../outcome.ts';
import { summarize, type Summary } from '../stats.ts';

export interface OverheadParams {
  latencies: number[];
  fanOuts: number[];
  /** Warm-up and measured runs per (latency, fan-out), by latency. */
  warmup: (latencyMs: number) => number;
  trials: (latencyMs: number) => number;
}

export interface OverheadResult {
  latencyMs: number;
  fanOut: number;
  /** Sequential model stages per run, counted at the model's log (4 for the shared workload). */
  stages: Summary;
  criticalPathMs: number;
  wallMs: Summary;
  /** wall − stages · L, per run. */
  overheadMs: Summary;
  /** wall − union of the run's model-call intervals on the model server's clock. */
  outsideModelMs: Summary;
  /** CPU time (user + system) of this process per run: what the orchestrator and its HTTP client burn. */
  cpuMs: Summary;
  /**
   * The floor run in the same process, interleaved run by run with this contender (so both see the
   * same machine load), and the per-pair difference: this contender's cost above the floor.
   */
  pairedFloor?: { wallMs: Summary; cpuMs: Summary; wallOverFloorMs: Summary; cpuOverFloorMs: Summary };
  modelCalls: { expected: number; perRun: Summary; ok: boolean };
  outcome: OutcomeCheck;
  /** Runs whose answer differed from the first run's (must be 0). */
  outcomeMismatches: number;
}

/** Each non-specialist call is a stage of its own; the specialists run in parallel as one. */
export function stagesOf(calls: LogEntry[]): number {
  const others = calls.filter((c) => c.role !== 'specialist').length;
  return others + (calls.length > others ? 1 : 0);
}

interface Timing {
  id: string;
  start: number;
  end: number;
  cpuMs: number;
}

async function timed(instance: ContenderInstance, id: string, fanOut: number) {
  const cpu0 = process.cpuUsage();
  const start = now();
  const outcome = await instance.run(id, fanOut);
  const settled = now();
  const cpu = process.cpuUsage(cpu0);
  // Wall ends at the answer; CPU runs to settled, so work done after the answer still counts.
  const end = outcome.answeredAt ?? settled;
  return { outcome, timing: { id: outcome.runId ?? id, start, end, cpuMs: (cpu.user + cpu.system) / 1000 } };
}

function byRun(entries: LogEntry[]): Map<string, LogEntry[]> {
  const runs = new Map<string, LogEntry[]>();
  for (const e of entries) {
    const key = e.runId ?? '(no run id)';
    let list = runs.get(key);
    if (!list) runs.set(key, (list = []));
    list.push(e);
  }
  return runs;
}

export async function measureOverhead(contender: Contender, params: OverheadParams): Promise<OverheadResult[]> {
  const results: OverheadResult[] = [];
  for (const latencyMs of params.latencies) {
    const model = await startModelServer(latencyMs);
    try {
      for (const fanOut of params.fanOuts) {
        // A fresh instance per cell: Parley learns a TeamConfig from the first fan-out's runs and
        // would reuse that plan (with its N steps) for the next fan-out's almost identical query.
        const instance = await contender.create({ modelUrl: model.baseUrl });
        const floor = contender.name === 'floor' ? undefined : await floorContender.create({ modelUrl: model.baseUrl });
        try {
          for (let i = 0; i < params.warmup(latencyMs); i++) {
            await instance.run(`warm-${latencyMs}-${fanOut}-${i}`, fanOut);
            if (floor) await floor.run(`fwarm-${latencyMs}-${fanOut}-${i}`, fanOut);
          }
          await model.clear();
          const timings: Timing[] = [];
          const floorTimings: Timing[] = [];
          let first: OutcomeCheck | undefined;
          let mismatches = 0;
          for (let t = 0; t < params.trials(latencyMs); t++) {
            // Alternate who goes first so neither always runs right after the other's garbage.
            if (floor && t % 2 === 1)
              floorTimings.push((await timed(floor, `fovh-${latencyMs}-${fanOut}-${t}`, fanOut)).timing);
            const { timing, outcome } = await timed(instance, `ovh-${latencyMs}-${fanOut}-${t}`, fanOut);
            timings.push(timing);
            if (floor && t % 2 === 0)
              floorTimings.push((await timed(floor, `fovh-${latencyMs}-${fanOut}-${t}`, fanOut)).timing);
            const check = checkOutcome(outcome);
            if (!first) first = check;
            else if (check.fingerprint !== first.fingerprint) mismatches++;
          }
          const runs = byRun(await model.entries());
          const walls = timings.map((t) => t.end - t.start);
          const stages = timings.map((t) => stagesOf(runs.get(t.id) ?? []));
          const calls = timings.map((t) => runs.get(t.id)?.length ?? 0);
          const expected = contender.expectedModelCalls(fanOut);
          results.push({
            latencyMs,
            fanOut,
            stages: summarize(stages),
            criticalPathMs: summarize(stages).median * latencyMs,
            wallMs: summarize(walls),
            overheadMs: summarize(walls.map((w, i) => w - stages[i]! * latencyMs)),
            outsideModelMs: summarize(timings.map((t) => outsideModelMs(runs.get(t.id) ?? [], t.start, t.end))),
            cpuMs: summarize(timings.map((t) => t.cpuMs)),
            ...(floor
              ? {
                  pairedFloor: {
                    wallMs: summarize(floorTimings.map((t) => t.end - t.start)),
                    cpuMs: summarize(floorTimings.map((t) => t.cpuMs)),
                    wallOverFloorMs: summarize(
                      timings.map((t, i) => t.end - t.start - (floorTimings[i]!.end - floorTimings[i]!.start)),
                    ),
                    cpuOverFloorMs: summarize(timings.map((t, i) => t.cpuMs - floorTimings[i]!.cpuMs)),
                  },
                }
              : {}),
            modelCalls: { expected, perRun: summarize(calls), ok: calls.every((c) => c === expected) },
            outcome: first!,
            outcomeMismatches: mismatches,
          });
          await model.clear();
        } finally {
          await floor?.close();
          await instance.close();
        }
      }
    } finally {
      await model.close();
    }
  }
  return results;
}
