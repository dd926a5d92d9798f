/**
 * Re-plan at once on a failed step (issue 14 §3, "node fails → regenerate the rest of the DAG"):
 * when a step failed hard (after the model client's own retries) and steps depending on it cannot
 * run, the dispatcher sends the run to the planner instead of the verifier. The new plan covers the
 * remaining part; the steps that finished are carried into it with their results, never run again.
 */
import type { GraphPlan, PlanStep } from './graph-plan.ts';
import type { EngineContext, RunState } from '../run/state.ts';

/**
 * The current plan's failed steps that other steps depend on, when the run should re-plan now;
 * undefined otherwise. Bounded: a run makes at most config.engine.maxVerifyRounds plans this way,
 * so a step that keeps failing reaches the verifier (and its own round bound), never a loop.
 */
export function failuresToReplan(run: RunState, ctx: EngineContext): string[] | undefined {
  if (!ctx.config.engine.replanOnFailure || run.planRound >= ctx.config.engine.maxVerifyRounds) return undefined;
  const steps = run.plan?.steps ?? [];
  const failed = steps.filter(
    (s) =>
      run.results.get(s.id)?.status === 'failed' &&
      // A step queued to run again (a verifier retry) has not failed yet in this round.
      !run.pending.has(s.id) &&
      steps.some((d) => d.dependsOn.includes(s.id)),
  );
  return failed.length ? failed.map((s) => s.id) : undefined;
}

/** The current plan's steps that succeeded, as planned (their results are in run.results). */
export function finishedSteps(run: RunState): PlanStep[] {
  return (run.plan?.steps ?? []).filter((s) => run.results.get(s.id)?.status === 'succeeded');
}

/**
 * The planner's plan for the remaining part, with the finished steps it did not list again added in
 * front under their own ids (so the new steps may depend on them and quote `{{id.result}}`). A new
 * step that lists a finished step's specialist and objective is that step (run.kept reuses it).
 */
export function withFinishedSteps(plan: GraphPlan, finished: readonly PlanStep[]): GraphPlan {
  const same = (a: PlanStep, b: PlanStep) => a.specialist === b.specialist && a.objective === b.objective;
  const carried = finished.filter((f) => !plan.steps.some((s) => same(s, f)));
  return { ...plan, steps: [...carried, ...plan.steps] };
}
