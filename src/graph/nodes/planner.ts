/** planner: re-plans after a low verifier score, telling the model what the last round learned. */
import { adoptPlan, loadSpecialists, planWithModel, retrieveCandidates } from '../plan-with-model.ts';
import type { EngineContext, RunState } from '../state.ts';
import type { NodeResult } from './node.ts';

export async function planner(run: RunState, ctx: EngineContext): Promise<NodeResult> {
  const previous = run.plan?.steps.map((s) => {
    const o = run.results.get(s.id);
    return `- ${s.id} (${s.specialist}): ${o?.status ?? 'not run'}${o?.error ? ` — ${o.error}` : ''}`;
  });
  const learned = [
    run.verification ? `Verifier score ${run.verification.score}: ${run.verification.feedback}` : '',
    previous?.length ? `Previous steps:\n${previous.join('\n')}` : '',
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
