/**
 * The light view of a run's checkpoints (GET /api/runs/:id/checkpoints): what each moment is and how
 * far the run had got — no plan, no step outputs. Those grow with steps × checkpoints (832 KiB for a
 * 50-step run when every entry carried them); one checkpoint in full is GET /api/runs/:id/checkpoints/:checkpoint.
 */
import type { RouteStage, UsageTotals } from '../run/events.ts';
import type { CheckpointKind, RunCheckpoint } from './checkpoints.ts';

export interface CheckpointEntry {
  id: string;
  seq: number;
  at: string;
  kind: CheckpointKind;
  label: string;
  route?: RouteStage;
  /** The plan round in force and how many steps its plan has; absent before the run planned. */
  planRound?: number;
  planSteps?: number;
  /** Steps finished so far (any ending), and of those, the ones that succeeded (a fork carries these). */
  stepsFinished: number;
  stepsSucceeded: number;
  /** The step this checkpoint follows (kind "step"). */
  stepId?: string;
  /** The latest verifier score at this moment. */
  score?: number;
  usage: UsageTotals;
}

export function entryOf(checkpoint: RunCheckpoint): CheckpointEntry {
  const { id, seq, at, kind, label, route, plan, planRound, steps, verification, usage } = checkpoint;
  return {
    id,
    seq,
    at,
    kind,
    label,
    ...(route ? { route } : {}),
    ...(plan ? { planRound, planSteps: plan.steps.length } : {}),
    stepsFinished: steps.length,
    stepsSucceeded: steps.filter((s) => s.status === 'succeeded').length,
    ...(kind === 'step' && steps.length ? { stepId: steps.at(-1)!.stepId } : {}),
    ...(verification ? { score: verification.score } : {}),
    usage,
  };
}
