/**
 * How a run that was in progress when the process stopped goes on after the restart: from its
 * checkpointed plan, with every step that succeeded kept (never run again) and the others, those that
 * were in flight included, run again; or, when that is not possible, it ends failed and says why.
 */
import type { Checkpoint } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../events.ts';
import type { GraphPlan, PlanStep } from '../graph-plan.ts';
import { keptKey } from '../plan-with-model.ts';
import type { StepOutcome } from '../scheduler.ts';
import type { KeptStep } from '../state.ts';

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
