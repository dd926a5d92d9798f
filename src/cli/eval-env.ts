/**
 * A configuration file of `parley eval --compare ENV_A ENV_B` (docs/evals.md): Parley's settings as
 * KEY=VALUE lines (the dotenv form Node's util.parseEnv reads: `#` comments, optional quotes), laid over
 * the environment. Every key must be a setting Parley reads (docs/configuration.md), so a typo is one
 * clear line instead of a comparison of two identical configurations.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ROLE_SETTING_SUFFIXES, SETTINGS } from '../config.ts';
import { MODEL_ROLES } from '../llm/types.ts';

/** Set by `parley eval` itself for each configuration: a file naming them would be ignored. */
const SET_BY_EVAL = new Set(['PARLEY_DATA_DIR', 'PARLEY_PORT']);

const KNOWN = new Set<string>([
  ...SETTINGS.map((row) => row.env),
  ...MODEL_ROLES.flatMap((role) =>
    Object.keys(ROLE_SETTING_SUFFIXES).map((suffix) => `PARLEY_MODEL_${role.toUpperCase()}${suffix}`),
  ),
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
]);

export class EnvFileError extends Error {
  override name = 'EnvFileError';
}

/** The file's settings; throws EnvFileError naming the file and the line's key when one is not a setting. */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EnvFileError(`cannot read the configuration ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  const vars = parseEnv(text) as Record<string, string>;
  for (const key of Object.keys(vars)) {
    if (SET_BY_EVAL.has(key))
      throw new EnvFileError(`${path}: ${key} is set by parley eval (each configuration gets a fresh data dir)`);
    if (!KNOWN.has(key))
      throw new EnvFileError(`${path}: ${key} is not a Parley setting (docs/configuration.md lists them)`);
  }
  return vars;
}
