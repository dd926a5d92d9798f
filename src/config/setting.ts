/**
 * One row of the settings table: the environment variable, its default, its parser and its place in
 * the config object. The rows are the only list of settings: docs/configuration.md, loadConfig and the
 * Config type all come from them (shape.ts infers the type; load.ts places the values).
 */
import type { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import type { ParleyPaths } from '../home/paths.ts';
import type { RoleModelConfig } from '../llm/settings.ts';

export interface Setting {
  env: string;
  /** Parses the variable's text; its messages say what is allowed. */
  schema: z.ZodType;
  /** Used when the variable is unset or empty; docs/configuration.md shows it. */
  default?: string;
  description: string;
  /**
   * Where the value goes in Config, dotted: 'server.port'. A segment ending in `?` is an object that
   * exists only when every row in it without a default has a value ('knowledge.neo4j?.uri').
   * Absent: a model row (`role`) or a setting read before the config (PARLEY_HOME, by home/paths.ts).
   */
  at?: string;
  /** What an unset value becomes once the Parley home is known (the home's copy, else the shipped one). */
  fromHome?: (value: never, paths: ParleyPaths) => unknown;
  /**
   * A model row: the value of `role` for every model role, which PARLEY_MODEL_<ROLE><suffix> overrides
   * for one role (the suffix is what follows PARLEY_MODEL in `env`); `perRole` names it in docs and errors.
   */
  role?: keyof RoleModelConfig;
  perRole?: string;
}

/**
 * A row whose unset value comes from the Parley home: `fromHome` is typed with the parser's output,
 * so a fallback of the wrong type does not compile.
 */
export function homeSetting<const Z extends z.ZodType, const R extends Omit<Setting, 'schema' | 'fromHome'>, V>(
  row: R & { schema: Z; fromHome: (value: z.output<Z> | undefined, paths: ParleyPaths) => V },
): R & { schema: Z; fromHome: (value: z.output<Z> | undefined, paths: ParleyPaths) => V } {
  return row;
}

/**
 * A model row: its parser must give what RoleModelConfig holds in `role`, or it does not compile.
 */
export function roleSetting<const K extends keyof RoleModelConfig, const R extends Omit<Setting, 'role'>>(
  row: R & { role: K; perRole: string; schema: z.ZodType<NonNullable<RoleModelConfig[K]>> },
): R & { role: K; perRole: string } {
  return row;
}

export type Env = Record<string, string | undefined>;

/** Settings whose values are secrets: an error names them without quoting the value. */
export const SECRET_SETTING = /(_KEYS?|_PASSWORD|_HEADERS|_DATABASE_URL|_REDIS_URL|_SECRET)$/;

/** The variable's value through its parser (its default when unset or empty); a wrong value throws ConfigError. */
export function readSetting(env: Env, setting: Pick<Setting, 'env' | 'schema' | 'default'>): unknown {
  const raw = env[setting.env];
  const value = raw === undefined || raw === '' ? setting.default : raw;
  if (value === undefined) return undefined;
  const parsed = setting.schema.safeParse(value);
  if (!parsed.success) {
    const allowed = parsed.error.issues.map((i) => i.message).join('; ');
    // Secrets (keys, passwords, headers that may carry auth) are named, never quoted: errors reach logs.
    const shown = SECRET_SETTING.test(setting.env) ? '(value not shown)' : `=${JSON.stringify(value)}`;
    throw new ConfigError(`${setting.env}${shown.startsWith('=') ? shown : ` ${shown}`} is invalid: ${allowed}`);
  }
  return parsed.data;
}
