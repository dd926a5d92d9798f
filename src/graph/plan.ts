/** GraphPlan: the DAG of specialist steps the router/planner produces. */
import { z } from 'zod';

export const PlanStepSchema = z.object({
  id: z.string().min(1).regex(/^[A-Za-z0-9_-]+$/, 'step ids are letters, digits, _ and -'),
  specialist: z.string().min(1),
  objective: z.string().min(1),
  dependsOn: z.array(z.string()).default([]),
  phase: z.enum(['research', 'execution']).default('execution'),
  timeoutMs: z.number().int().positive().optional(),
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

export const GraphPlanSchema = z.object({
  rationale: z.string().default(''),
  steps: z.array(PlanStepSchema).min(1),
});
export type GraphPlan = z.infer<typeof GraphPlanSchema>;
