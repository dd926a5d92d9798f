/**
 * dispatcher: on first entry goes to memory; then fans out the pending research steps (awaited by
 * research_joiner), then the pending execution steps (execution_joiner); when nothing is pending,
 * the plan is complete and the verifier judges it. A re-run round carries the verifier's feedback.
 * When a step failed and steps depending on it cannot run, it goes to the planner at once
 * (replan-on-failure.ts) rather than running the rest and waiting for the verifier.
 */
import { isSuspended } from '../run/suspended.ts';
import { scheduleSteps, type ScheduleGrowth, type StepOutcome } from '../planning/scheduler.ts';
import type { GraphEventBody } from '../run/events.ts';
import type { PlanStep } from '../planning/graph-plan.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import { runStep } from '../specialists/index.ts';
import { failuresToReplan } from '../planning/replan-on-failure.ts';
import type { Decision, Next } from '../run/edges.ts';
import { Team, teamFor, teamOf } from '../dynamic/team.ts';
import { inlineResults } from '../planning/inline-results.ts';
import { BudgetExceededError } from '../spending/usage.ts';

export async function dispatcher(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'dispatcher'>>> {
  if (run.memory === undefined) return { next: 'memory' };
  const plan = run.plan;
  if (!plan) throw new Error('dispatcher reached without a plan');
  const failed = failuresToReplan(run, ctx);
  if (failed) {
    return { next: 'planner', update: { replanAfterFailure: failed } };
  }
  const pending = plan.steps.filter((s) => run.pending.has(s.id));
  const research = pending.filter((s) => s.phase === 'research');
  const batch = research.length ? research : pending;
  if (batch.length === 0) return { next: 'verifier' };

  const steps = batch.map((s) => withFeedback(s, run.feedback));
  // A plan with a manager step grows while it runs: its agents spawn steps into the batch (dynamic/team.ts).
  const team = teamOf(run) ?? (plan.steps.some(Team.isAgent) ? teamFor(run, ctx) : undefined);
  // Each step's attempt, counted as it starts (spawned steps too); the joiner folds them into run.attempts.
  const attempts = new Map<string, number>();
  const outcomes = scheduleSteps({
    steps,
    prior: run.results,
    concurrency: ctx.config.engine.stepConcurrency,
    defaultTimeoutMs: ctx.config.engine.stepTimeoutMs,
    signal: run.abort.signal,
    onStart: (step, objective) => {
      const attempt = (attempts.get(step.id) ?? run.attempts.get(step.id) ?? 0) + 1;
      attempts.set(step.id, attempt);
      team?.started(step);
      emit(run, { type: 'step.started', stepId: step.id, specialist: step.specialist, objective, attempt });
    },
    onFinish: (outcome) => {
      // A suspended run's steps run again where it resumes: they did not finish.
      if (!isSuspended(run.abort.signal)) emit(run, finishedEvent(outcome));
      team?.finished(outcome);
    },
    ...(team ? { onGrowth: (growth: ScheduleGrowth) => team.attach(growth) } : {}),
    inline: async (step, outputs) => {
      try {
        return await inlineResults(run, ctx, step, outputs);
      } catch (err) {
        // As in a step's own calls: a budget overrun ends the whole run (blocked), not just this step.
        if (err instanceof BudgetExceededError) run.abort.abort(err);
        throw err;
      }
    },
    run: (step, objective, signal, clock) =>
      runStep({ run, ctx, step, objective, signal, clock, attempt: attempts.get(step.id) ?? 1 }),
  });
  const inflight = outcomes.then((done) => ({ outcomes: done, attempts }));
  return { next: research.length ? 'research_joiner' : 'execution_joiner', update: { inflight } };
}

function finishedEvent(o: StepOutcome): GraphEventBody {
  return {
    type: 'step.finished',
    stepId: o.stepId,
    specialist: o.specialist,
    status: o.status,
    ...(o.output !== undefined ? { output: o.output } : {}),
    ...(o.error !== undefined ? { error: o.error } : {}),
    ...(o.lineage ? { lineage: o.lineage } : {}),
  };
}

function withFeedback(step: PlanStep, feedback: string | undefined): PlanStep {
  if (!feedback) return step;
  return { ...step, objective: `${step.objective}\n\nFeedback from verification of the previous attempt: ${feedback}` };
}
