/** `a2a` specialists: the objective goes to a remote peer agent; its progress streams as step.delta. */
import type { StepRun } from '../planning/scheduler.ts';
import { emit } from '../run/state.ts';
import type { SpecialistInput } from './prompt.ts';
import { announcingApprovals } from './tool-loop.ts';
import { addNamed, namedSourcesOfPeer } from './named-sources.ts';

export async function runA2aSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  const { run, ctx, specialist, step } = input;
  if (!ctx.peers)
    return { ok: false, output: '', error: `no A2A peer host is configured for specialist "${specialist.id}"` };
  const result = await ctx.span(
    'a2a.run',
    { 'parley.run_id': run.id, 'parley.step_id': step.id, 'parley.peer': specialist.endpoint },
    () =>
      ctx.peers!.run(specialist.endpoint, input.objective, {
        runId: run.id,
        stepId: step.id,
        signal: input.signal,
        onProgress: (text) => emit(run, { type: 'step.delta', stepId: step.id, text }),
        approvals: announcingApprovals(run, ctx, input.clock),
      }),
  );
  input.work.sources.push(...result.sources, `a2a:${specialist.endpoint}`);
  if (result.ok) addNamed(input.work.named, namedSourcesOfPeer(specialist.name, specialist.endpoint, result.sources));
  return result.ok
    ? { ok: true, output: result.output }
    : { ok: false, output: result.output, error: result.error ?? 'peer agent failed' };
}
