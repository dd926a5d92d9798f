/**
 * What the scheduler hands a step: its objective with the results it quotes ({{stepId.result}}) put in,
 * fitted to the reading model's context (prompting/context-budget.ts). Here in planning/, beside the
 * plan's quoting rules (graph-plan.ts), so prompting/ needs nothing of the plan.
 */
import type { EngineContext, RunState } from '../run/state.ts';
import { fitPieces, type Reader } from '../prompting/context-budget.ts';
import { referencedSteps, substituteResults, type PlanStep } from './graph-plan.ts';

/**
 * A step's objective with the results it quotes inlined (graph-plan.ts substituteResults), each fitted
 * to the budget of the model that runs the step: the specialist's role, and the step's own model.
 */
export async function inlineResults(
  run: RunState,
  ctx: EngineContext,
  step: PlanStep,
  outputs: ReadonlyMap<string, string>,
): Promise<string> {
  const quoted = referencedSteps(step.objective).filter((id) => outputs.has(id));
  if (quoted.length === 0) return substituteResults(step.objective, outputs);
  const role = run.specialists.get(step.specialist)?.modelRole ?? 'specialist';
  const reader: Reader = { role, ...(step.model ? { model: step.model } : {}) };
  const rest = [step.objective, run.request.query, ...run.history.messages.map((m) => m.content)];
  const fitted = await fitPieces(
    run,
    ctx,
    reader,
    rest,
    quoted.map((id) => ({ stepId: id, text: outputs.get(id)! })),
  );
  return substituteResults(step.objective, new Map(fitted.map((p) => [p.stepId, p])));
}
