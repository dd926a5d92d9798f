/**
 * The router's branch for a plan handed to the engine (EngineDeps.presetPlan: tests and embedders).
 * It takes the path a reused team takes — memory prefetch, adopt the plan, dispatch — so what follows
 * the router is the same as for any plan; an invalid one fails the run instead of being planned around.
 */
import { validatePlan, type GraphPlan } from '../planning/graph-plan.ts';
import { adoptPlan, knownSpecialists } from '../planning/plan-with-model.ts';
import { emit, type EngineContext, type NodeRun } from '../run/state.ts';
import { prefetchMemory } from './memory.ts';
import type { Decision, Next } from '../run/edges.ts';

export function runPresetPlan(
  run: NodeRun,
  ctx: EngineContext,
  plan: GraphPlan,
  reason = 'running the plan handed to the engine (EngineDeps.presetPlan)',
): Decision<Next<'router'>> {
  const errors = validatePlan(plan, knownSpecialists(run));
  if (errors.length) {
    return {
      next: 'end',
      update: { outcome: { status: 'failed', error: `the preset plan is invalid: ${errors.join('; ')}` } },
    };
  }
  void prefetchMemory(run, ctx);
  emit(run, {
    type: 'route.decided',
    stage: 'preset_plan',
    reason,
    candidates: [...new Set(plan.steps.map((s) => s.specialist))],
  });
  return { next: 'dispatcher', update: adoptPlan(run, plan) };
}
