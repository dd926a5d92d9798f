/**
 * The engine's one hook for time travel (RunOptions.resumeFrom): a new run starts from a checkpoint's
 * state the way durable recovery resumes a run (durable/resume-plan.ts): the router takes the given
 * plan, and the steps carried from the checkpoint are kept — matched like a re-plan's kept steps,
 * by specialist and objective with every dependency kept too — so they are never run again.
 */
import type { Logger } from '../../log.ts';
import type { RunStore } from '../../store/runs/run-store.ts';
import { keptKey } from '../planning/plan-with-model.ts';
import type { RunState } from '../run/state.ts';
import type { ResumeFrom } from '../run/engine-port.ts';

export type { ResumeFrom } from '../run/engine-port.ts';

export function seedRun(run: RunState, seed: ResumeFrom, store: RunStore | undefined, logger: Logger): void {
  run.resumePlan = seed.plan;
  run.resumeReason = seed.reason;
  run.planRound = seed.round;
  run.kept = new Map(seed.kept.map((k) => [keptKey(k.step), k]));
  if (seed.verification)
    run.carriedVerification = {
      ...seed.verification,
      failedStepIds: [],
      outputs: new Map(seed.kept.map((k) => [k.step.id, k.outcome.output ?? ''])),
    };
  // In the new run's own checkpoint from its start: a restart resumes it with them, and its checkpoints list them.
  for (const { step, outcome } of seed.kept) {
    const { objective: _objective, ...stored } = outcome;
    store?.checkpoints.saveStep(run.id, { stepId: step.id, step, outcome: stored }).catch((err: unknown) => {
      logger.error('run store: checkpointing a carried step failed', { runId: run.id, error: String(err) });
    });
  }
}
