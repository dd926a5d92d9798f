/**
 * What the streaming adapters (SSE, AG-UI) share in their request bodies: the run options a client may
 * set (mode, models, budget). Validated with zod; the first issue becomes a 400 that names
 * the field (`budget.tokens: …`).
 */
import { z } from 'zod';
import {
  CITATION_STYLES,
  ModelNameSchema,
  RoleModelsSchema,
  RUN_MODES,
  unknownRoleMessage,
} from '../../graph/contract.ts';

/** Budget overrides: each may only lower the configured default (the engine enforces that). */
export const BudgetOverrideSchema = z
  .object({
    tokens: z.number().int().positive(),
    costUsd: z.number().positive(),
    modelCalls: z.number().int().positive(),
    toolCalls: z.number().int().positive(),
    wallTimeMs: z.number().int().positive(),
  })
  .partial()
  .strict();

export const RunOptionsSchema = z.object({
  mode: z.enum(RUN_MODES).optional(),
  /** One model for every role `models` does not name (src/graph/run/request-models.ts). */
  model: ModelNameSchema.optional(),
  /** Per-role model overrides, e.g. { "synthesizer": "gpt-4o" }. */
  models: RoleModelsSchema.optional(),
  budget: BudgetOverrideSchema.optional(),
  /** Stream the model's reasoning as model.thought events (default PARLEY_STREAM_REASONING). */
  reasoning: z.boolean().optional(),
  /** "numbered": the answer cites named sources as [1], [2] and lists them at its end (default "none"). */
  citations: z.enum(CITATION_STYLES).optional(),
});
export type RunOptions = z.infer<typeof RunOptionsSchema>;

/** "field.path: message" for the first zod issue, with `prefix` before the path when given. */
export function describeIssue(error: z.ZodError, prefix = ''): { field: string; message: string } {
  const issue = error.issues[0]!;
  // A key the per-role models record does not know is a role name: name it and list the roles.
  if (issue.code === 'unrecognized_keys' && issue.path.at(-1) === 'models') {
    const field = [prefix, ...issue.path.map(String), issue.keys[0]].filter(Boolean).join('.');
    return { field, message: `${field}: ${unknownRoleMessage(issue.keys[0]!)}` };
  }
  const path = issue.path.map(String).join('.');
  const field = [prefix, path].filter(Boolean).join('.') || 'body';
  const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  return { field, message: `${field}: ${issue.message}${keys}` };
}
