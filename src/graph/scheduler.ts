/**
 * scheduleSteps: event-driven DAG dispatch. A step starts the moment its last dependency succeeds
 * (no waves, no polling), up to `concurrency` at once. A failed, skipped or cancelled step skips its
 * dependents; independent branches go on. Each step runs under its own AbortSignal, aborted by the
 * step timeout or by the run's signal, so cancellation reaches in-flight model and tool calls.
 * The step timeout is a clock the step pauses while it waits on a human (an approval or an
 * elicitation): the time a human takes is bounded by the approval timeout, not the step's.
 */
import { setMaxListeners } from 'node:events';
import { PausableDeadline } from '../tools/deadline.ts';
import type { PlanStep } from './graph-plan.ts';
import { substituteResults } from './graph-plan.ts';
import type { StepLineage, StepStatus } from './events.ts';

export interface StepOutcome {
  stepId: string;
  specialist: string;
  status: StepStatus;
  /** The objective actually given to the specialist (after {{id.result}} substitution). */
  objective: string;
  output?: string;
  error?: string;
  lineage?: StepLineage;
}

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
  onStart?(step: PlanStep, objective: string): void;
  onFinish?(outcome: StepOutcome): void;
}

/** A step's timeout clock: paused while the step waits on a human (nested pauses are counted). */
export interface StepClock {
  pause(): void;
  resume(): void;
}

export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
}

export function scheduleSteps(options: ScheduleOptions): Promise<Map<string, StepOutcome>> {
  if (options.steps.length === 0) return Promise.resolve(new Map());
  return new Promise((resolve) => new Batch(options, resolve).begin());
}

/** One scheduleSteps call: a class with its callbacks on the prototype (no closures per batch). */
class Batch {
  readonly #steps: PlanStep[];
  readonly #prior: ReadonlyMap<string, StepOutcome>;
  readonly #signal: AbortSignal;
  readonly #concurrency: number;
  readonly #inBatch: Map<string, PlanStep>;
  readonly #results = new Map<string, StepOutcome>();
  readonly #waitingOn = new Map<string, number>();
  readonly #dependents = new Map<string, string[]>();
  readonly #ready: PlanStep[] = [];
  readonly #started = new Set<string>();
  #running = 0;

  constructor(
    private readonly options: ScheduleOptions,
    private readonly resolve: (results: Map<string, StepOutcome>) => void,
  ) {
    this.#steps = options.steps;
    this.#prior = options.prior ?? new Map();
    this.#signal = options.signal;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#inBatch = new Map(this.#steps.map((s) => [s.id, s]));
  }

  begin(): void {
    // Wire the DAG: dependencies inside the batch gate the start; outside ones must already have succeeded.
    for (const step of this.#steps) {
      let waiting = 0;
      let blockedBy: StepOutcome | undefined;
      let missing: string | undefined;
      for (const dep of step.dependsOn) {
        if (this.#inBatch.has(dep)) {
          waiting++;
          this.#dependents.set(dep, [...(this.#dependents.get(dep) ?? []), step.id]);
        } else {
          const before = this.#prior.get(dep);
          if (!before) missing = dep;
          else if (before.status !== 'succeeded') blockedBy = before;
        }
      }
      this.#waitingOn.set(step.id, waiting);
      if (blockedBy || missing) {
        this.#finish({
          stepId: step.id,
          specialist: step.specialist,
          status: 'skipped',
          objective: step.objective,
          error: blockedBy
            ? `skipped: dependency "${blockedBy.stepId}" ${blockedBy.status}`
            : `skipped: dependency "${missing}" has no result`,
        });
      }
    }
    for (const step of this.#steps) if (this.#waitingOn.get(step.id) === 0 && !this.#results.has(step.id)) this.#ready.push(step);
    this.#signal.addEventListener('abort', this, { once: true });
    this.#pump();
  }

  /** The run's signal aborted. */
  handleEvent(): void {
    this.#pump();
  }

  /** @internal a started step ended. */
  ended(outcome: StepOutcome): void {
    this.#running--;
    this.#finish(outcome);
    this.#pump();
  }

  #finish(outcome: StepOutcome): void {
    if (this.#results.has(outcome.stepId)) return;
    this.#results.set(outcome.stepId, outcome);
    this.options.onFinish?.(outcome);
    for (const depId of this.#dependents.get(outcome.stepId) ?? []) {
      const dependent = this.#inBatch.get(depId)!;
      if (outcome.status !== 'succeeded') {
        this.#finish({
          stepId: dependent.id,
          specialist: dependent.specialist,
          status: 'skipped',
          objective: dependent.objective,
          error: `skipped: dependency "${outcome.stepId}" ${outcome.status}`,
        });
      } else {
        const left = this.#waitingOn.get(depId)! - 1;
        this.#waitingOn.set(depId, left);
        if (left === 0 && !this.#results.has(depId)) this.#ready.push(dependent);
      }
    }
  }

  #cancelUnstarted(): void {
    for (const step of this.#steps) {
      if (!this.#started.has(step.id) && !this.#results.has(step.id)) {
        this.#finish({ stepId: step.id, specialist: step.specialist, status: 'cancelled', objective: step.objective, error: 'run cancelled' });
      }
    }
  }

  #pump(): void {
    if (this.#signal.aborted) this.#cancelUnstarted();
    while (!this.#signal.aborted && this.#running < this.#concurrency && this.#ready.length) this.#start(this.#ready.shift()!);
    if (this.#results.size === this.#steps.length) {
      this.#signal.removeEventListener('abort', this);
      this.resolve(this.#results);
    }
  }

  #start(step: PlanStep): void {
    this.#started.add(step.id);
    this.#running++;
    const depOutputs = new Map<string, string>();
    for (const dep of step.dependsOn) depOutputs.set(dep, (this.#results.get(dep) ?? this.#prior.get(dep))?.output ?? '');
    const objective = substituteResults(step.objective, depOutputs);
    this.options.onStart?.(step, objective);
    void runOne(step, objective, this.options).then((outcome) => this.ended(outcome));
  }
}

function runOne(step: PlanStep, objective: string, options: ScheduleOptions): Promise<StepOutcome> {
  return new Promise((resolve) => new StepExecution(step, objective, options, resolve));
}

/**
 * One step's run under its own AbortSignal (aborted by the step timeout or the run's signal), raced
 * against that signal so a runner that ignores it cannot hold the run. A class whose listener is on
 * the prototype: a step in flight holds one closure (its deadline's) and no extra async frames.
 */
class StepExecution {
  readonly #controller = new AbortController();
  readonly #deadline: PausableDeadline;
  #settled = false;
  readonly timeoutMs: number;

  constructor(
    readonly step: PlanStep,
    private readonly objective: string,
    private readonly options: ScheduleOptions,
    private readonly resolve: (outcome: StepOutcome) => void,
  ) {
    const signal = this.#controller.signal;
    setMaxListeners(1000, signal); // a step may have many calls in flight (a council step: 5)
    options.signal.addEventListener('abort', this, { once: true });
    if (options.signal.aborted) this.#controller.abort(options.signal.reason);
    this.timeoutMs = step.timeoutMs ?? options.defaultTimeoutMs;
    this.#deadline = new PausableDeadline(this.timeoutMs, () => this.timeout());
    signal.addEventListener('abort', this, { once: true });
    let running: Promise<StepRun>;
    try {
      running = options.run(step, objective, signal, this.#deadline);
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(
      (run) => this.#succeeded(run),
      (err: unknown) => this.#failed(err),
    );
  }

  /** The run's signal aborted (abort the step's), or the step's own did (the step ends now). */
  handleEvent(event: Event): void {
    if (event.target === this.#controller.signal) this.#failed(this.#controller.signal.reason);
    else this.#controller.abort(this.options.signal.reason);
  }

  /** @internal the step timer fired. */
  timeout(): void {
    this.#controller.abort(new StepTimeoutError(`step "${this.step.id}" timed out after ${this.timeoutMs} ms`));
  }

  #succeeded(run: StepRun): void {
    const base = { stepId: this.step.id, specialist: this.step.specialist, objective: this.objective };
    this.#settle(
      run.ok
        ? { ...base, status: 'succeeded', output: run.output, lineage: run.lineage }
        : { ...base, status: 'failed', output: run.output || undefined, error: run.error ?? 'step failed', lineage: run.lineage },
    );
  }

  #failed(err: unknown): void {
    const base = { stepId: this.step.id, specialist: this.step.specialist, objective: this.objective };
    if (this.options.signal.aborted) return this.#settle({ ...base, status: 'cancelled', error: 'run cancelled' });
    const signal = this.#controller.signal;
    const reason: unknown = signal.aborted ? signal.reason : err;
    this.#settle({ ...base, status: 'failed', error: reason instanceof Error ? reason.message : String(reason) });
  }

  #settle(outcome: StepOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadline.clear();
    this.options.signal.removeEventListener('abort', this);
    this.#controller.signal.removeEventListener('abort', this);
    this.resolve(outcome);
  }
}
