/** council (mode "council" or the router's council route): the chairman's advice is the run's answer. */
import { answerParagraphs, runCouncil } from '../specialists/council.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import { emptyUsage } from '../spending/usage.ts';
import type { Decision, Next } from '../run/edges.ts';

export async function council(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'council'>>> {
  const result = await runCouncil(run, ctx, run.request.query, run.abort.signal, emptyUsage());
  // The answer comes from one structured call (the model client streams text, not schema-bound answers),
  // so it streams by paragraph: a client shows the recommendation while the rest follows. The verdict
  // itself is data, on the council.stage event.
  for (const paragraph of answerParagraphs(result.text)) emit(run, { type: 'answer.delta', text: paragraph });
  return { next: 'end', update: { verdict: result.verdict, answer: result.text } };
}
