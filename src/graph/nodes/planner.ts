/**
 * planner: re-plans, telling the model what the last round learned: what failed and why, and the
 * results already in hand. Entered after a low verifier score, or straight from the dispatcher when
 * a failed step left its dependents unable to run (replan-on-failure.ts): then the model plans the
 * remaining part and the finished steps are carried into the new plan with their results. Steps
 * that succeeded (and the verifier did not name) are kept: a new step with the same specialist and
 * objective reuses the result, never re-runs.
 */
import { adoptPlan, keptKey, loadSpecialists, planWithModel, retrieveCandidates } from '../planning/plan-with-model.ts';
import { finishedSteps, withFinishedSteps } from '../planning/replan-on-failure.ts';
import type { PlanCause } from '../run/events.ts';
import type { EngineContext, KeptStep, NodeRun, RunState } from '../run/state.ts';
import type { Decision, Next } from '../run/edges.ts';
import { BudgetExceededError } from '../spending/usage.ts';

/** The planner needs only the gist of a kept result (it is reused whole): a clip that says so. */
const clip = (text: string, n: number) =>
  text.length > n ? `${text.slice(0, n)}… [${text.length - n} more characters not shown]` : text;

export async function planner(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'planner'>>> {
  const afterFailure = run.replanAfterFailure;
  // The verifier's flags name steps of the plan it judged; a failure re-plan comes before any verdict on this plan.
  const kept = keptAfterRound(run, afterFailure ? [] : (run.verification?.failedStepIds ?? []));
  // Whatever this node decides, the request to re-plan after a failure is answered and this round's steps are kept.
  const answered = { replanAfterFailure: undefined, kept };
  const finished = afterFailure ? finishedSteps(run) : [];
  const previous = run.plan?.steps.map((s) => {
    const o = run.results.get(s.id);
    return `- ${s.id} (${s.specialist}): ${o?.status ?? 'not run'}${o?.error ? ` — ${o.error}` : ''}`;
  });
  const inHand = [...kept.values()].map(
    (k) => `- ${k.step.specialist}, objective "${clip(k.step.objective, 200)}": ${clip(k.outcome.output ?? '', 300)}`,
  );
  const learned = [
    afterFailure
      ? failureNote(
          run,
          afterFailure,
          finished.map((s) => s.id),
        )
      : '',
    !afterFailure && run.verification ? `Verifier score ${run.verification.score}: ${run.verification.feedback}` : '',
    previous?.length ? `Previous steps:\n${previous.join('\n')}` : '',
    inHand.length
      ? `Results already in hand (a step with the same specialist and objective is not run again; its result is reused):\n${inHand.join('\n')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  if (!run.candidates.length) {
    await loadSpecialists(run, ctx);
    await retrieveCandidates(run, ctx);
  }
  const previousFailed = afterFailure ?? run.verification?.failedStepIds ?? [];
  let attempt: Awaited<ReturnType<typeof planWithModel>>;
  try {
    attempt = await planWithModel(run, ctx, learned, (plan) => withFinishedSteps(plan, finished));
  } catch (err) {
    // A failure re-plan is an early shortcut: when the planner model itself fails, the verifier
    // judges the round as it would have without it. Cancellation and budgets end the run.
    if (!afterFailure || run.abort.signal.aborted || err instanceof BudgetExceededError) throw err;
    ctx.logger.warn('re-planning after a failed step failed; the verifier judges the round', {
      runId: run.id,
      error: (err as Error).message,
    });
    return { next: 'verifier', update: answered };
  }
  if (!attempt.ok) {
    // Keep what we have: synthesize the best result so far rather than failing a run that produced something.
    const exhausted = `re-planning failed (${attempt.errors.join('; ')}); answering from the best result so far`;
    return { next: 'synthesizer', update: { ...answered, exhausted } };
  }
  const round = run.planRound + 1;
  const cause: PlanCause = { cause: afterFailure ? 'step_failed' : 'verifier', failedStepIds: previousFailed };
  const adopted = adoptPlan(run, attempt.plan, { round, kept, replan: cause });
  return { next: 'dispatcher', update: { ...answered, planRound: round, ...adopted } };
}

/** What a failure re-plan is for: which steps failed and why, what could not run, what stays. */
function failureNote(run: RunState, failedIds: string[], finishedIds: string[]): string {
  const steps = run.plan?.steps ?? [];
  const failed = failedIds.map((id) => {
    const step = steps.find((s) => s.id === id)!;
    const blocked = steps.filter((s) => s.dependsOn.includes(id)).map((s) => s.id);
    return `- step ${id} (${step.specialist}) failed: ${run.results.get(id)?.error ?? 'step failed'}; it blocked ${blocked.join(', ')}`;
  });
  return [
    `A step failed, so the steps depending on it could not run:\n${failed.join('\n')}`,
    'Plan the remaining part of the query: replace the failed step and what depended on it.',
    finishedIds.length
      ? `Finished steps ${finishedIds.join(', ')} are kept with their results and are not run again: do not reuse their ids; a new step may depend on them and include their output (the id plus .result in double curly braces).`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** run.kept plus this round's succeeded steps, except those the verifier named as wrong. */
function keptAfterRound(run: RunState, flaggedIds: readonly string[]): Map<string, KeptStep> {
  const flagged = new Set(flaggedIds);
  const kept = new Map(run.kept);
  for (const step of run.plan?.steps ?? []) {
    const outcome = run.results.get(step.id);
    if (outcome?.status === 'succeeded' && !flagged.has(step.id)) kept.set(keptKey(step), { step, outcome });
  }
  return kept;
}
