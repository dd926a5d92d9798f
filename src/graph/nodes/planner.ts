/**
 * planner: re-plans after a low verifier score, telling the model what the last round learned: what
 * failed and why, and the results already in hand. Steps that succeeded (and the verifier did not
 * name) are kept: a new step with the same specialist and objective reuses the result, never re-runs.
 */
import { adoptPlan, keptKey, loadSpecialists, planWithModel, retrieveCandidates } from '../plan-with-model.ts';
import type { EngineContext, KeptStep, RunState } from '../state.ts';
import type { NodeResult } from './node.ts';

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export async function planner(run: RunState, ctx: EngineContext): Promise<NodeResult> {
  keepSucceeded(run);
  const previous = run.plan?.steps.map((s) => {
    const o = run.results.get(s.id);
    return `- ${s.id} (${s.specialist}): ${o?.status ?? 'not run'}${o?.error ? ` — ${o.error}` : ''}`;
  });
  const inHand = [...(run.kept?.values() ?? [])].map(
    (k) => `- ${k.step.specialist}, objective "${clip(k.step.objective, 200)}": ${clip(k.outcome.output ?? '', 300)}`,
  );
  const learned = [
    run.verification ? `Verifier score ${run.verification.score}: ${run.verification.feedback}` : '',
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
  const attempt = await planWithModel(run, ctx, learned);
  if (!attempt.ok) {
    // Keep what we have: synthesize the best result so far rather than failing a run that produced something.
    run.exhausted = `re-planning failed (${attempt.errors.join('; ')}); answering from the best result so far`;
    return 'synthesizer';
  }
  run.planRound++;
  adoptPlan(run, attempt.plan);
  return 'dispatcher';
}

/** Adds this round's succeeded steps, except those the verifier named as wrong, to run.kept. */
function keepSucceeded(run: RunState): void {
  const flagged = new Set(run.verification?.failedStepIds ?? []);
  const kept = run.kept ?? new Map<string, KeptStep>();
  for (const step of run.plan?.steps ?? []) {
    const outcome = run.results.get(step.id);
    if (outcome?.status === 'succeeded' && !flagged.has(step.id)) kept.set(keptKey(step), { step, outcome });
  }
  run.kept = kept;
}
