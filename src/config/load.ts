/**
 * One validated Config from environment variables (and the Parley home they point at): every row of
 * the table is read with its parser and put at its place. A wrong value stops start-up with one line
 * naming the variable and what is allowed (setting.ts).
 */
import { ConfigError } from '../config-error.ts';
import { resolveParleyPaths, type ParleyPaths } from '../home/paths.ts';
import type { ModelSettings } from '../llm/settings.ts';
import { readModelRoles } from './model-roles.ts';
import { readSetting, type Env, type Setting } from './setting.ts';
import type { ShapeOf, Simplify } from './shape.ts';
import { SETTINGS } from './table.ts';

type TableConfig = ShapeOf<typeof SETTINGS>;

/**
 * Everything Parley runs on. Inferred from the table (shape.ts), plus what no single row gives: the
 * resolved home (`paths`) and each model role's settings (`model`, whose type llm/ owns: the table's
 * model rows are checked against it where loadConfig builds it).
 */
export type Config = Simplify<Omit<TableConfig, 'model'> & { paths: ParleyPaths; model: ModelSettings }>;

/** 'knowledge.neo4j?.uri' → ['knowledge', 'neo4j', 'uri'], and the optional object it sits in ('knowledge.neo4j?'). */
function parsePlace(at: string): { keys: string[]; group?: string } {
  const segments = at.split('.');
  const optional = segments.findIndex((s) => s.endsWith('?'));
  return {
    keys: segments.map((s) => s.replace(/\?$/, '')),
    ...(optional >= 0 ? { group: segments.slice(0, optional + 1).join('.') } : {}),
  };
}

function place(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

function remove(target: Record<string, unknown>, group: string): void {
  const keys = parsePlace(group).keys;
  let node: Record<string, unknown> | undefined = target;
  for (const key of keys.slice(0, -1)) node = node?.[key] as Record<string, unknown> | undefined;
  if (node) delete node[keys.at(-1)!];
}

export function loadConfig(env: Env = process.env): Config {
  const values = new Map<Setting, unknown>(SETTINGS.map((row) => [row, readSetting(env, row)]));
  const model = readModelRoles(env, (row) => values.get(row));
  if (values.get(rowOf('PARLEY_REDIS_URL')) && !values.get(rowOf('PARLEY_DATABASE_URL'))) {
    // Replicas share their durable state through Postgres; Redis alone would leave each with its own.
    throw new ConfigError('PARLEY_REDIS_URL needs PARLEY_DATABASE_URL: replicas keep their runs in one Postgres');
  }
  const paths = resolveParleyPaths(env);
  const placed: Record<string, unknown> = {};
  const absent = new Set<string>();
  for (const row of SETTINGS) {
    if (!('at' in row)) continue;
    const read = values.get(row);
    const value = 'fromHome' in row ? row.fromHome(read as never, paths) : read;
    const { keys, group } = parsePlace(row.at);
    if (value !== undefined) place(placed, keys, value);
    else if (group && !('default' in row)) absent.add(group);
  }
  for (const group of absent) remove(placed, group);
  const table = placed as TableConfig;
  return { ...table, paths, model: { ...table.model, ...model } satisfies ModelSettings };
}

function rowOf(env: (typeof SETTINGS)[number]['env']): Setting {
  return SETTINGS.find((row) => row.env === env)!;
}
