/**
 * How a run that was in progress when the process stopped goes on after the restart: from its
 * checkpointed plan, with every step that succeeded kept (never run again) and the others, those that
 * were in flight included, run again; or, when that is not possible, it ends failed and says why.
 */
import type { Checkpoint } from '../../store/runs/run-store.ts';
import type { GraphEvent, GraphEventOf } from '../run/events.ts';
import type { GraphPlan, PlanStep } from '../planning/graph-plan.ts';
import { keptKey } from '../planning/plan-with-model.ts';
import type { StepOutcome } from '../planning/scheduler.ts';
import type { KeptStep } from '../run/state.ts';

export const INTERRUPTED = 'interrupted by a restart of Parley';

export type Resumption =
  { resume: true; plan: GraphPlan; round: number; kept: Map<string, KeptStep> } | { resume: false; reason: string };

export function resumptionOf(events: readonly GraphEvent[], checkpoint: Checkpoint | undefined): Resumption {
  if (!checkpoint?.plan) {
    return { resume: false, reason: `${INTERRUPTED} before it had a plan to resume from; ask again` };
  }
  // An answer already (partly) streamed cannot be taken back; writing it again would repeat it.
  if (events.some((e) => e.type === 'answer.delta' || (e.type === 'node.started' && e.node === 'synthesizer'))) {
    return { resume: false, reason: `${INTERRUPTED} while it was writing its answer; ask again` };
  }
  const kept = new Map<string, KeptStep>();
  for (const stored of checkpoint.steps) {
    const step = stored.step as PlanStep | undefined;
    const outcome = stored.outcome as Omit<StepOutcome, 'objective'>;
    if (!step || outcome.status !== 'succeeded') continue;
    kept.set(keptKey(step), { step, outcome: { ...outcome, objective: step.objective } });
  }
  return { resume: true, plan: checkpoint.plan as GraphPlan, round: checkpoint.planRound ?? 1, kept };
}

/**
 * The tool calls a run started before the process stopped and never finished: after the restart the
 * step runs again and calls anew, so each of these is closed with its own `tool.finished` (error
 * INTERRUPTED) first, keeping every tool.started of the log paired with one tool.finished.
 */
export function unfinishedToolCalls(events: readonly GraphEvent[]): GraphEventOf<'tool.started'>[] {
  const open = new Map<string, GraphEventOf<'tool.started'>>();
  for (const e of events) {
    if (e.type === 'tool.started') open.set(e.toolCallId, e);
    else if (e.type === 'tool.finished') open.delete(e.toolCallId);
  }
  return [...open.values()];
}
