/** council (mode "council" or the router's council route): the verdict is the run's answer. */
import { runCouncil, verdictSections } from '../specialists/council.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import { emptyUsage } from '../spending/usage.ts';
import type { Decision, Next } from '../run/edges.ts';

export async function council(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'council'>>> {
  const result = await runCouncil(run, ctx, run.request.query, run.abort.signal, emptyUsage());
  // The verdict is one structured call (the model client streams text, not schema-bound answers), so it
  // streams by section: a client shows the recommendation while the rest follows.
  verdictSections(result.verdict).forEach((section, i) =>
    emit(run, { type: 'answer.delta', text: i === 0 ? section : `\n\n${section}` }),
  );
  return { next: 'end', update: { verdict: result.verdict, answer: result.text } };
}
