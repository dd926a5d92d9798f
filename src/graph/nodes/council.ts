/** council (mode "council" or the router's council route): the verdict is the run's answer. */
import { runCouncil } from '../run-council.ts';
import { emit, type EngineContext, type RunState } from '../state.ts';
import { emptyUsage } from '../usage.ts';
import type { NodeResult } from './node.ts';

export async function council(run: RunState, ctx: EngineContext): Promise<NodeResult> {
  const result = await runCouncil(run, ctx, run.request.query, run.abort.signal, emptyUsage());
  run.verdict = result.verdict;
  run.answer = result.text;
  emit(run, { type: 'answer.delta', text: result.text });
  return 'end';
}
