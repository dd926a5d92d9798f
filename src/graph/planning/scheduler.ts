/**
 * scheduleSteps: event-driven DAG dispatch. A step starts the moment its last dependency succeeds
 * (no waves, no polling), up to `concurrency` at once. A failed, skipped or cancelled step skips its
 * dependents; independent branches go on. Each step runs under its own AbortSignal, aborted by the
 * step timeout or by the run's signal, so cancellation reaches in-flight model and tool calls.
 * The step timeout is a clock the step pauses while it waits on a human (an approval or an
 * elicitation): the time a human takes is bounded by the approval timeout, not the step's.
 */
import { setMaxListeners } from 'node:events';
import { PausableDeadline } from '../../tools/deadline.ts';
import type { PlanStep } from './graph-plan.ts';
import { substituteResults } from './graph-plan.ts';
import type { StepLineage } from '../run/events.ts';
import type { StepOutcome } from '../run/step-outcome.ts';

/** Re-exported: most readers of an outcome also run the scheduler; prompts import step-outcome.ts itself. */
export type { StepOutcome } from '../run/step-outcome.ts';

/** What a step runner returns on success; throwing (or an ok:false) fails the step. */
export interface StepRun {
  ok: boolean;
  output: string;
  error?: string;
  lineage?: StepLineage;
}

export interface ScheduleOptions {
  steps: PlanStep[];
  /** Outcomes of steps outside this batch (earlier phase or round) that batch steps may depend on. */
  prior?: ReadonlyMap<string, StepOutcome>;
  concurrency: number;
  defaultTimeoutMs: number;
  signal: AbortSignal;
  run(step: PlanStep, objective: string, signal: AbortSignal, clock: StepClock): Promise<StepRun>;
  /**
   * The objective a step's specialist gets, from its dependencies' outputs (default: substituteResults,
   * each quoted result inlined whole in a <parley:result> block). The engine's fits them to the step
   * model's context first (context-budget.ts); a rejection fails the step.
   */
  inline?(step: PlanStep, outputs: ReadonlyMap<string, string>): Promise<string>;
  onStart?(step: PlanStep, objective: string): void;
  onFinish?(outcome: StepOutcome): void;
  /** Called once, before any step starts, with the handle that grows the batch while it runs (dynamic teams). */
  onGrowth?(growth: ScheduleGrowth): void;
}

/**
 * A running batch that grows: a step an agent spawns joins it and starts as soon as a slot is free.
 * A step that waits on the steps it spawned gives its slot up meanwhile (block/unblock), so nested
 * managers never hold every slot while their workers queue.
 */
export interface ScheduleGrowth {
  add(step: PlanStep): void;
  block(): void;
  unblock(): void;
  /** Steps ready to start but not started yet. */
  readonly queued: number;
}

/** A step's timeout clock: paused while the step waits on a human (nested pauses are counted). */
export interface StepClock {
  pause(): void;
  resume(): void;
}

export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
}

export async function scheduleSteps(options: ScheduleOptions): Promise<Map<string, StepOutcome>> {
  const { signal } = options;
  const steps = [...options.steps];
  const prior = options.prior ?? new Map<string, StepOutcome>();
  const concurrency = Math.max(1, options.concurrency);
  const inBatch = new Map(steps.map((s) => [s.id, s]));
  const dependents = new Map<string, PlanStep[]>();
  const waitingOn = new Map<string, number>();
  for (const step of steps) {
    const inside = step.dependsOn.filter((dep) => inBatch.has(dep));
    waitingOn.set(step.id, inside.length);
    for (const dep of inside) dependents.set(dep, [...(dependents.get(dep) ?? []), step]);
  }
  const results = new Map<string, StepOutcome>();
  const started = new Set<string>();
  const ready: PlanStep[] = [];
  const inFlight = new Set<Promise<void>>();
  let blocked = 0;
  // Wakes the loop when the batch grows or a slot frees while every step in flight is still running.
  let wake = (): void => {};
  let woken = new Promise<void>((resolve) => (wake = resolve));
  options.onGrowth?.({
    add: (step) => {
      steps.push(step);
      inBatch.set(step.id, step);
      waitingOn.set(step.id, 0);
      if (signal.aborted) finish(notRun(step, 'cancelled', 'run cancelled'));
      else ready.push(step);
      wake();
    },
    block: () => {
      blocked++;
      wake();
    },
    unblock: () => {
      blocked--;
    },
    get queued() {
      return ready.length;
    },
  });

  /** Records an outcome once; a step that did not succeed skips its dependents, transitively. */
  const finish = (outcome: StepOutcome): void => {
    if (results.has(outcome.stepId)) return;
    results.set(outcome.stepId, outcome);
    options.onFinish?.(outcome);
    for (const dependent of dependents.get(outcome.stepId) ?? []) {
      if (outcome.status !== 'succeeded') {
        finish(notRun(dependent, 'skipped', `skipped: dependency "${outcome.stepId}" ${outcome.status}`));
        continue;
      }
      const left = waitingOn.get(dependent.id)! - 1;
      waitingOn.set(dependent.id, left);
      if (left === 0 && !results.has(dependent.id)) ready.push(dependent);
    }
  };
  // On the abort itself (before the in-flight steps end as cancelled), so unstarted steps read "cancelled".
  const cancelUnstarted = (): void => {
    for (const step of steps) if (!started.has(step.id)) finish(notRun(step, 'cancelled', 'run cancelled'));
  };

  // Dependencies outside the batch must already have succeeded.
  for (const step of steps) {
    const blocker = outsideBlocker(step, inBatch, prior);
    if (blocker) finish(notRun(step, 'skipped', blocker));
  }
  for (const step of steps) if (waitingOn.get(step.id) === 0 && !results.has(step.id)) ready.push(step);

  signal.addEventListener('abort', cancelUnstarted, { once: true });
  try {
    if (signal.aborted) cancelUnstarted();
    while (results.size < steps.length) {
      while (!signal.aborted && inFlight.size - blocked < concurrency && ready.length) {
        const step = ready.shift()!;
        started.add(step.id);
        const running = startStep(step, results, prior, options).then((outcome) => {
          inFlight.delete(running);
          finish(outcome);
        });
        inFlight.add(running);
      }
      if (results.size === steps.length) break;
      // Plans are validated acyclic; were one not, waiting here would hang the run.
      if (inFlight.size === 0) throw new Error('scheduleSteps: the remaining steps wait on each other');
      await Promise.race([...inFlight, woken]);
      woken = new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal.removeEventListener('abort', cancelUnstarted);
  }
  return results;
}

/** Why a step cannot run because of a dependency outside the batch, or undefined. */
function outsideBlocker(
  step: PlanStep,
  inBatch: ReadonlyMap<string, PlanStep>,
  prior: ReadonlyMap<string, StepOutcome>,
): string | undefined {
  for (const dep of step.dependsOn) {
    if (inBatch.has(dep)) continue;
    const before = prior.get(dep);
    if (!before) return `skipped: dependency "${dep}" has no result`;
    if (before.status !== 'succeeded') return `skipped: dependency "${before.stepId}" ${before.status}`;
  }
  return undefined;
}

function notRun(step: PlanStep, status: 'skipped' | 'cancelled', error: string): StepOutcome {
  return { stepId: step.id, specialist: step.specialist, status, objective: step.objective, error };
}

async function startStep(
  step: PlanStep,
  results: ReadonlyMap<string, StepOutcome>,
  prior: ReadonlyMap<string, StepOutcome>,
  options: ScheduleOptions,
): Promise<StepOutcome> {
  const depOutputs = new Map<string, string>();
  for (const dep of step.dependsOn) depOutputs.set(dep, (results.get(dep) ?? prior.get(dep))?.output ?? '');
  let objective: string;
  try {
    objective = options.inline ? await options.inline(step, depOutputs) : substituteResults(step.objective, depOutputs);
  } catch (err) {
    if (options.signal.aborted) return notRun(step, 'cancelled', 'run cancelled');
    const error = `preparing the objective failed: ${err instanceof Error ? err.message : String(err)}`;
    return { stepId: step.id, specialist: step.specialist, status: 'failed', objective: step.objective, error };
  }
  options.onStart?.(step, objective);
  return runOne(step, objective, options);
}

/**
 * One step's run under its own AbortSignal (aborted by the run's signal or the step's timeout), raced
 * against that signal so a runner that ignores it cannot hold the run.
 *
 * The run's signal is joined by a listener removed when the step ends, not by AbortSignal.any: on
 * Node 20 a composite signal that keeps a listener is never collected (nodejs/node#55351, #64476),
 * and every call and tool a step makes listens on its signal.
 */
async function runOne(step: PlanStep, objective: string, options: ScheduleOptions): Promise<StepOutcome> {
  const base = { stepId: step.id, specialist: step.specialist, objective };
  const timeoutMs = step.timeoutMs ?? options.defaultTimeoutMs;
  const controller = new AbortController();
  const signal = controller.signal;
  setMaxListeners(1000, signal); // a step may have many calls in flight (a council step: 5)
  const onRunAbort = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onRunAbort();
  else options.signal.addEventListener('abort', onRunAbort, { once: true });
  // A pausable clock rather than AbortSignal.timeout: the time a human takes does not count.
  const clock = new PausableDeadline(timeoutMs, () =>
    controller.abort(new StepTimeoutError(`step "${step.id}" timed out after ${timeoutMs} ms`)),
  );
  let onStepAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onStepAbort = () => reject(signal.reason);
    if (signal.aborted) onStepAbort();
    else signal.addEventListener('abort', onStepAbort, { once: true });
  });
  try {
    const run = await Promise.race([options.run(step, objective, signal, clock), aborted]);
    return run.ok
      ? { ...base, status: 'succeeded', output: run.output, lineage: run.lineage }
      : {
          ...base,
          status: 'failed',
          output: run.output || undefined,
          error: run.error ?? 'step failed',
          lineage: run.lineage,
        };
  } catch (err) {
    if (options.signal.aborted) return { ...base, status: 'cancelled', error: 'run cancelled' };
    const reason: unknown = signal.aborted ? signal.reason : err;
    return { ...base, status: 'failed', error: reason instanceof Error ? reason.message : String(reason) };
  } finally {
    clock.clear();
    options.signal.removeEventListener('abort', onRunAbort);
    signal.removeEventListener('abort', onStepAbort);
  }
}
