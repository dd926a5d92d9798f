/**
 * A run's checkpoints, read from its event log (docs/time-travel.md). The log already holds every
 * moment a user may go back to — the route decided, each plan, each finished step with its output,
 * each verification round, the synthesizer about to write — so a checkpoint is the state the log
 * describes up to one of those events, and its id names that event's seq (`cp-<seq>`): stable for as
 * long as the run's events are kept, on every backend, with nothing more to store.
 */
import type { GraphEvent, GraphEventOf, RouteStage, UsageTotals } from '../run/events.ts';
import type { GraphPlan, PlanStep } from '../planning/graph-plan.ts';
import type { StepOutcome } from '../planning/scheduler.ts';

export type CheckpointKind = 'routed' | 'planned' | 'step' | 'verified' | 'before_synthesis';

/** A finished step as a checkpoint holds it: the outcome the run had for it at that moment. */
export interface CheckpointStep {
  stepId: string;
  specialist: string;
  status: StepOutcome['status'];
  output?: string;
  error?: string;
  /** The objective the step was planned with (before its dependencies' results were inlined). */
  objective?: string;
  model?: string;
}

/** What a step.finished event says of its step (the objective comes from the plan, not the event). */
export function finishedStep(e: GraphEventOf<'step.finished'>): Omit<CheckpointStep, 'objective'> {
  return {
    stepId: e.stepId,
    specialist: e.specialist,
    status: e.status,
    ...(e.output !== undefined ? { output: e.output } : {}),
    ...(e.error !== undefined ? { error: e.error } : {}),
    ...(e.lineage?.model ? { model: e.lineage.model } : {}),
  };
}

export interface RunCheckpoint {
  id: string;
  seq: number;
  at: string;
  kind: CheckpointKind;
  /** What the moment was, in words ("after step s3 (succeeded)"). */
  label: string;
  route?: RouteStage;
  /** The plan in force and its round; absent before the run planned (or when it never does). */
  plan?: GraphPlan;
  planRound?: number;
  /** Every step finished so far, in the order they finished (a step finished again replaces its earlier outcome). */
  steps: CheckpointStep[];
  /** The verification of this round (kind "verified"), or the latest one before this moment. */
  verification?: { round: number; score: number; feedback: string; failedStepIds: string[]; next: string };
  usage: UsageTotals;
}

/** The state a fork starts from: what checkpointsOf reports, plus the plan steps the finished ones ran as. */
export interface CheckpointState extends RunCheckpoint {
  /** The plan step each finished step ran as, by step id (the plan of its round). */
  planned: Map<string, PlanStep>;
  /** Step ids a verification round flagged as wrong after they finished: a fork runs them again. */
  flagged: Set<string>;
}

export const ZERO_USAGE: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  costUsd: 0,
  modelCalls: 0,
  toolCalls: 0,
};

export const checkpointId = (seq: number): string => `cp-${seq}`;

/** A step a fork carried from its parent's checkpoint (it never finished in the fork's own log). */
export interface CarriedStep {
  step: PlanStep;
  finished: CheckpointStep;
}

/** The checkpoints of a run, oldest first, each with the whole state it holds. */
export function checkpointsOf(events: readonly GraphEvent[], carried: readonly CarriedStep[] = []): RunCheckpoint[] {
  return statesOf(events, carried).map(publicView);
}

/** The state at one checkpoint, or undefined when the run has no checkpoint of that id. */
export function checkpointState(
  events: readonly GraphEvent[],
  id: string,
  carried: readonly CarriedStep[] = [],
): CheckpointState | undefined {
  const match = /^cp-(\d{1,9})$/.exec(id);
  if (!match) return undefined;
  const seq = Number(match[1]);
  return statesOf(
    events.filter((e) => e.seq <= seq),
    carried,
  ).find((s) => s.seq === seq);
}

export function publicView(state: CheckpointState): RunCheckpoint {
  const { planned: _planned, flagged: _flagged, ...view } = state;
  return view;
}

function statesOf(events: readonly GraphEvent[], carried: readonly CarriedStep[]): CheckpointState[] {
  const out: CheckpointState[] = [];
  let route: RouteStage | undefined;
  let plan: GraphPlan | undefined;
  let planRound: number | undefined;
  let usage: UsageTotals = ZERO_USAGE;
  let verification: RunCheckpoint['verification'];
  const steps = new Map<string, CheckpointStep>(carried.map((c) => [c.step.id, c.finished]));
  const planned = new Map<string, PlanStep>(carried.map((c) => [c.step.id, c.step]));
  const flagged = new Set<string>();
  // Spawned steps (dynamic teams) are in no plan: their step.spawned says what they were.
  const spawned = new Map<string, PlanStep>();

  const take = (e: GraphEvent, kind: CheckpointKind, label: string) =>
    out.push({
      id: checkpointId(e.seq),
      seq: e.seq,
      at: e.at,
      kind,
      label,
      ...(route ? { route } : {}),
      ...(plan ? { plan, planRound } : {}),
      steps: [...steps.values()],
      ...(verification ? { verification } : {}),
      usage,
      planned: new Map(planned),
      flagged: new Set(flagged),
    });

  for (const e of events) {
    switch (e.type) {
      case 'usage':
        usage = e.usage;
        break;
      case 'route.decided':
        route = e.stage;
        take(e, 'routed', `after routing (${e.stage})`);
        break;
      case 'plan.ready':
        plan = e.plan;
        planRound = e.round;
        take(e, 'planned', `after planning (round ${e.round}, ${e.plan.steps.length} steps)`);
        break;
      case 'step.spawned':
        spawned.set(e.stepId, {
          id: e.stepId,
          specialist: e.specialist,
          objective: e.objective,
          dependsOn: [],
          phase: 'execution',
          parentStepId: e.parentStepId,
          ...(e.model ? { model: e.model } : {}),
        });
        break;
      case 'step.finished':
        recordStep(e);
        take(e, 'step', `after step ${e.stepId} (${e.status})`);
        break;
      case 'verify.result':
        verification = {
          round: e.round,
          score: e.score,
          feedback: e.feedback,
          failedStepIds: e.failedStepIds,
          next: e.next,
        };
        if (e.next !== 'synthesize') for (const id of e.failedStepIds) flagged.add(id);
        take(e, 'verified', `after verification round ${e.round} (score ${e.score}, next: ${e.next})`);
        break;
      case 'node.started':
        if (e.node === 'synthesizer') take(e, 'before_synthesis', 'before synthesis');
        break;
      default:
        break;
    }
  }
  return out;

  function recordStep(e: GraphEventOf<'step.finished'>): void {
    const step = plan?.steps.find((s) => s.id === e.stepId) ?? spawned.get(e.stepId);
    steps.delete(e.stepId);
    steps.set(e.stepId, { ...finishedStep(e), ...(step ? { objective: step.objective } : {}) });
    if (step) planned.set(e.stepId, step);
    flagged.delete(e.stepId);
  }
}
