/** GraphPlan: the DAG of specialist steps the router/planner produces. */
import { z } from 'zod';
import type { GraphPlan, PlanStep } from '../../knowledge/records.ts';
import { ModelNameSchema } from '../run/request-models.ts';
import { findCycle } from './find-cycle.ts';
import { resultBlock } from '../prompting/prompts.ts';
import type { FittedPiece } from '../prompting/context-piece.ts';

/** The plan types are the knowledge store's records (it keeps plans with runs and teams); this file validates them. */
export type { GraphPlan, PlanStep } from '../../knowledge/records.ts';

// The descriptions go to the planner model inside the JSON schema; PLANNER_SYSTEM (plan-with-model.ts) explains the same fields.
export const PlanStepSchema = z.object({
  id: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9_-]+$/, 'step ids are letters, digits, _ and -')
    .describe('Unique step id: letters, digits, _ and -. Other steps name it in dependsOn.'),
  specialist: z.string().min(1).describe('The id of one listed specialist that does this step'),
  objective: z
    .string()
    .min(1)
    .describe(
      "What the specialist is to do, in full (a dependency's output is included as its id plus .result in double curly braces)",
    ),
  dependsOn: z.array(z.string()).default([]).describe('Ids of the steps whose output this step needs'),
  phase: z
    .enum(['research', 'execution'])
    .default('execution')
    .describe('research: gathers facts and runs first; execution: produces the answer'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Optional time limit for the step in milliseconds (default: the configured step timeout)'),
  /** The model this step's specialist calls use instead of its role's (priced like any other call). */
  model: ModelNameSchema.optional().describe("Optional model name for this step's calls; leave unset normally"),
  /** The step's agent may spawn agents of its own (hybrid plans; docs/engine.md "Dynamic teams"). */
  manager: z.boolean().optional().describe('Hybrid mode only: the step may spawn agents of its own'),
  /** Set by the engine on a spawned step; a planner never sets it. */
  parentStepId: z.string().optional().describe('Set by Parley on steps agents spawn; never set it'),
  /** The step changes things (writes files or records): only then is it offered tools that do (PlanStep.changes). */
  changes: z
    .boolean()
    .optional()
    .describe(
      'true when the step creates, edits, moves or deletes files or records; otherwise false (read-only tools)',
    ),
});

export const GraphPlanSchema = z.object({
  rationale: z.string().default('').describe('One or two sentences on why this plan answers the query'),
  steps: z.array(PlanStepSchema).min(1),
});

// The schema parses exactly the stored record: a field added to one and not the other (optional ones
// included) fails to compile. `Same` is the usual exact type-equality test.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const schemaMatchesRecord: Same<z.output<typeof PlanStepSchema>, PlanStep> &
  Same<z.output<typeof GraphPlanSchema>, GraphPlan> = true;
void schemaMatchesRecord;

/** Built-in specialist id that runs the council as a plan step. */
export const COUNCIL_SPECIALIST = 'council';

/** Built-in specialist id of a dynamic run's first node: an agent that only organizes a team. */
export const MANAGER_SPECIALIST = 'manager';

const RESULT_REF = /\{\{\s*([A-Za-z0-9_-]+)\.result\s*\}\}/g;

/** Step ids a text references as `{{id.result}}`, in order of first appearance. */
export function referencedSteps(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(RESULT_REF)) ids.add(m[1]!);
  return [...ids];
}

/**
 * Replaces each `{{id.result}}` with that step's result, verbatim (or its marked summary) inside a
 * `<parley:result step="id">…</parley:result>` block. A reference with no result never reaches a model
 * as it is: it becomes a note that the step has no result.
 */
export function substituteResults(text: string, results: ReadonlyMap<string, string | FittedPiece>): string {
  return text.replace(RESULT_REF, (_whole, id: string) => {
    const result = results.get(id);
    if (result === undefined) return `[no result from step "${id}"]`;
    return resultBlock(typeof result === 'string' ? { stepId: id, text: result } : result);
  });
}

/** What the planner is told about {{id.result}} (one sentence of its instructions). */
export const INLINED_RESULTS_NOTE = `\nA quoted {{stepId.result}} is replaced by that step's whole output, verbatim, inside a <parley:result step="stepId">…</parley:result> block (summarized, and marked so, only when it would not fit the reading model's context), so put the objective's own instructions and constraints before or after the block, never inside a sentence around it.`;

/**
 * Every problem with a plan, as sentences a planner model can act on (empty when valid):
 * duplicate ids, unknown specialists, unknown or self dependencies, cycles, result references to
 * steps that are not dependencies.
 */
/**
 * `offered`: when the plan comes from the planner model, the specialist ids it was shown; a known
 * specialist outside them is an error too (a plan from a proven team or a preset is checked against
 * the registry only).
 */
export function validatePlan(
  plan: GraphPlan,
  knownSpecialists: ReadonlySet<string>,
  offered?: ReadonlySet<string>,
): string[] {
  const errors: string[] = [];
  const byId = new Map<string, PlanStep>();
  for (const step of plan.steps) {
    if (byId.has(step.id)) errors.push(`step id "${step.id}" is used more than once`);
    else byId.set(step.id, step);
  }
  for (const step of plan.steps) {
    if (!knownSpecialists.has(step.specialist)) {
      errors.push(`step "${step.id}" uses unknown specialist "${step.specialist}"`);
    } else if (offered && !offered.has(step.specialist)) {
      errors.push(
        `step "${step.id}" uses specialist "${step.specialist}", which the planner was not offered (offered: ${[...offered].join(', ')})`,
      );
    }
    for (const dep of step.dependsOn) {
      if (dep === step.id) errors.push(`step "${step.id}" depends on itself`);
      else if (!byId.has(dep)) errors.push(`step "${step.id}" depends on unknown step "${dep}"`);
    }
    if (step.parentStepId !== undefined && !byId.has(step.parentStepId))
      errors.push(`step "${step.id}" was spawned by unknown step "${step.parentStepId}"`);
    for (const ref of referencedSteps(step.objective)) {
      if (!step.dependsOn.includes(ref)) {
        errors.push(`step "${step.id}" references {{${ref}.result}} but does not depend on "${ref}"`);
      }
    }
  }
  const cycle = dependencyCycle(plan.steps, byId);
  if (cycle) errors.push(`steps form a cycle: ${cycle.join(' -> ')}`);
  return errors;
}

/** One dependency cycle as a path of ids (first id repeated at the end), or undefined. */
function dependencyCycle(steps: PlanStep[], byId: Map<string, PlanStep>): string[] | undefined {
  const cycle = findCycle(
    steps.map((s) => s.id),
    (id) => (byId.get(id)?.dependsOn ?? []).filter((dep) => dep !== id && byId.has(dep)),
  );
  return cycle && [...cycle, cycle[0]!];
}

/**
 * Research runs before execution, so a research step that (transitively) depends on an execution
 * step cannot run in the research phase: it is moved to execution rather than rejecting the plan.
 */
export function normalizePhases(plan: GraphPlan): GraphPlan {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const execution = new Set(plan.steps.filter((s) => s.phase === 'execution').map((s) => s.id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of plan.steps) {
      if (!execution.has(s.id) && s.dependsOn.some((d) => execution.has(d) && byId.has(d))) {
        execution.add(s.id);
        grew = true;
      }
    }
  }
  return {
    ...plan,
    steps: plan.steps.map((s) => (s.phase === 'research' && execution.has(s.id) ? { ...s, phase: 'execution' } : s)),
  };
}
