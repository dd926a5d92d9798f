/**
 * The team an earlier dynamic run grew, as a plan to start from (router stage 1): its spawned steps
 * become planned ones, and a step that spawned agents depends on them and reads their results, so a
 * similar query runs the proven shape at once instead of paying the manager's turns to grow it again.
 */
import type { GraphPlan, PlanStep } from '../planning/graph-plan.ts';

export function learnedShape(plan: GraphPlan): GraphPlan {
  if (!plan.steps.some((s) => s.parentStepId !== undefined)) return plan;
  const children = new Map<string, string[]>();
  for (const s of plan.steps)
    if (s.parentStepId !== undefined) children.set(s.parentStepId, [...(children.get(s.parentStepId) ?? []), s.id]);
  const steps = plan.steps.map(({ parentStepId: _parent, manager: _manager, ...step }): PlanStep => {
    const kids = children.get(step.id);
    if (!kids) return step;
    return {
      ...step,
      dependsOn: [...new Set([...step.dependsOn, ...kids])],
      objective: `${step.objective}\n\nYour team's results:\n${kids.map((k) => `- ${k}: {{${k}.result}}`).join('\n')}`,
    };
  });
  return { rationale: `${plan.rationale} (the team an earlier dynamic run grew, planned up front)`.trim(), steps };
}

/** Whether a plan holds steps spawned while it ran. */
export const isEmergent = (plan: GraphPlan): boolean => plan.steps.some((s) => s.parentStepId !== undefined);
