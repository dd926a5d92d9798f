/**
 * A replay (docs/time-travel.md): the same request — query, mode, prior messages, parts, budget — as a
 * new run on another configuration: other models per role (or one for all), another specialist set.
 */
import { z } from 'zod';
import { ModelNameSchema, resolveModelChoice, RoleModelsSchema } from '../run/request-models.ts';
import type { RunRequest } from '../run/request.ts';
import { repeatedRequest } from './fork-request.ts';

export const ReplayBodySchema = z.strictObject({
  model: ModelNameSchema.optional(),
  models: RoleModelsSchema.optional(),
  /** The specialists the replay may plan with (ids of available specialists). */
  specialists: z.array(z.string().min(1).max(200)).min(1).max(200).optional(),
});
export type ReplayBody = z.infer<typeof ReplayBodySchema>;

export function replayRequest(
  parentId: string,
  parent: RunRequest,
  body: ReplayBody,
  known: ReadonlySet<string>,
): { ok: true; request: RunRequest } | { ok: false; message: string } {
  const unknown = (body.specialists ?? []).filter((id) => !known.has(id));
  if (unknown.length)
    return { ok: false, message: `specialists: no available specialist ${unknown.map((id) => `"${id}"`).join(', ')}` };
  // Models named in the body replace the parent's choice wholly: a replay on another model is on it alone.
  const models =
    body.model !== undefined || body.models !== undefined
      ? resolveModelChoice({ model: body.model, models: body.models })
      : parent.models;
  return {
    ok: true,
    request: {
      ...repeatedRequest(parent, parent.query, models),
      ...(body.specialists ? { specialists: body.specialists } : {}),
      replayOf: parentId,
    },
  };
}
