/**
 * Every model role's model settings from the `role` rows of the table: the rows give the defaults,
 * PARLEY_MODEL_<ROLE><suffix> overrides one for one role (docs/configuration.md, "Per-role models").
 * With no endpoint and no key anywhere, every role uses the built-in scripted model.
 */
import { ConfigError } from '../config-error.ts';
import { SCRIPTED_BASE_URL } from '../llm/scripted-url.ts';
import type { ModelSettings, RoleModelConfig } from '../llm/settings.ts';
import { MODEL_ROLES, type ModelRole } from '../llm/types.ts';
import { MODEL_SETTINGS } from './model.ts';
import { url } from './parsers.ts';
import { readSetting, type Env } from './setting.ts';

type RoleRow = Extract<(typeof MODEL_SETTINGS)[number], { role: string }>;
const ROLE_ROWS = MODEL_SETTINGS.filter((row): row is RoleRow => 'role' in row);

/** What follows PARLEY_MODEL in a role row's variable: '' for the model name, '_BASE_URL', … */
const suffixOf = (row: RoleRow) => row.env.slice('PARLEY_MODEL'.length);
const roleEnvName = (role: ModelRole) => `PARLEY_MODEL_${role.toUpperCase()}`;

/** Per-role overrides: PARLEY_MODEL_<ROLE> plus each suffix, with the role row's parser and what it names. */
export const ROLE_SETTING_SUFFIXES: Readonly<Record<string, { schema: RoleRow['schema']; description: string }>> =
  Object.fromEntries(ROLE_ROWS.map((row) => [suffixOf(row), { schema: row.schema, description: row.perRole }]));

export type ModelRoles = Pick<ModelSettings, 'scripted' | 'roles' | 'ownRoles'>;

/**
 * `read` gives a row's value as the table read it (already validated). The values are cast to
 * RoleModelConfig's fields: roleSetting() checked at compile time that each row's parser gives its field.
 */
export function readModelRoles(env: Env, read: (row: RoleRow) => unknown): ModelRoles {
  const base = Object.fromEntries(ROLE_ROWS.map((row) => [row.role, read(row)])) as Partial<RoleModelConfig> &
    Pick<RoleModelConfig, 'model' | 'timeoutMs'>;
  const baseUrl = base.baseUrl ?? (env.OPENAI_BASE_URL || undefined);
  const apiKey = base.apiKey ?? (env.OPENAI_API_KEY || undefined);
  if (baseUrl !== undefined && !url.safeParse(baseUrl).success) {
    throw new ConfigError(`OPENAI_BASE_URL=${JSON.stringify(baseUrl)} is invalid: an http(s) URL`);
  }
  const scripted = baseUrl === undefined && apiKey === undefined;
  const defaults: RoleModelConfig = {
    ...base,
    model: scripted && env.PARLEY_MODEL === undefined ? 'scripted' : base.model,
    baseUrl: baseUrl ?? (scripted ? SCRIPTED_BASE_URL : 'https://api.openai.com/v1'),
    apiKey: apiKey ?? 'not-needed',
  };
  const ownRoles: ModelRole[] = [];
  const roles = Object.fromEntries(
    MODEL_ROLES.map((role) => {
      const cfg: RoleModelConfig = { ...defaults };
      if (role === 'default') return [role, cfg];
      for (const row of ROLE_ROWS) {
        const name = roleEnvName(role) + suffixOf(row);
        const own = readSetting(env, { env: name, schema: row.schema });
        if (own === undefined) continue;
        // Capability overrides add to the default ones; every other value replaces the default.
        Object.assign(cfg, {
          [row.role]: row.role === 'capabilities' ? { ...cfg.capabilities, ...(own as object) } : own,
        });
      }
      if (ROLE_ROWS.some((row) => (env[roleEnvName(role) + suffixOf(row)] ?? '') !== '')) ownRoles.push(role);
      return [role, cfg];
    }),
  ) as Record<ModelRole, RoleModelConfig>;
  return { scripted, roles, ownRoles };
}
