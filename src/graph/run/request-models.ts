/**
 * The models a client may choose for one run, the same on every protocol: `models` by role
 * ({ "synthesizer": "gpt-4o" }) and/or one `model` for every role `models` does not name. One
 * check for all adapters, so a role or model name is accepted or refused alike everywhere; each
 * adapter turns a refusal into its protocol's own error. Whether the model has a price is checked
 * before each call (call-budget.ts), like any other call.
 */
import { z } from 'zod';
import { MODEL_ROLES, type ModelRole } from '../../llm/types.ts';

export type RequestModels = Partial<Record<ModelRole, string>>;

/** A provider's model id: printable ASCII without spaces (`gpt-4o`, `openai/gpt-4o-mini`, `llama3.1:8b`). */
export const ModelNameSchema = z
  .string()
  .min(1, 'must be a non-empty model name')
  .max(200, 'a model name is at most 200 characters')
  .regex(/^[\x21-\x7e]+$/, 'a model name is printable ASCII without spaces');

export const RoleModelsSchema = z.partialRecord(z.enum(MODEL_ROLES), ModelNameSchema);

/** The request-model fields as one object: what every adapter reads from its protocol's place. */
export const ModelChoiceSchema = z.object({ model: ModelNameSchema.optional(), models: RoleModelsSchema.optional() });
export type ModelChoice = z.infer<typeof ModelChoiceSchema>;

/** A valid choice as the run's per-role models: `models` wins over `model` for the roles it names. */
export function resolveModelChoice(choice: ModelChoice): RequestModels | undefined {
  if (choice.model === undefined)
    return choice.models && Object.keys(choice.models).length ? { ...choice.models } : undefined;
  const all = Object.fromEntries(MODEL_ROLES.map((role) => [role, choice.model])) as RequestModels;
  return { ...all, ...choice.models };
}

/** What a client is told about a role name Parley does not have. */
export const unknownRoleMessage = (role: string): string =>
  `unknown model role ${JSON.stringify(role)} (roles: ${MODEL_ROLES.join(', ')})`;

export type ReadModels = { ok: true; models?: RequestModels } | { ok: false; field: string; message: string };

/**
 * Reads `{ model?, models? }` from a protocol's free-form place (A2A metadata, ACP _meta, MCP
 * arguments, …). `prefix` names that place in the message (`metadata.parley`), so the client sees
 * which field was wrong: `metadata.parley.models.chef: unknown model role "chef" (roles: …)`.
 */
export function readModelChoice(raw: unknown, prefix = ''): ReadModels {
  const parsed = ModelChoiceSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A record with enum keys reports a key it does not know as unrecognized: say it is a role.
    const unknownRole = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = unknownRole === undefined ? issue.path : [...issue.path, unknownRole];
    const field = [prefix, ...path.map(String)].filter(Boolean).join('.') || 'models';
    const message = unknownRole === undefined ? issue.message : unknownRoleMessage(unknownRole);
    return { ok: false, field, message: `${field}: ${message}` };
  }
  const models = resolveModelChoice(parsed.data);
  return models ? { ok: true, models } : { ok: true };
}
