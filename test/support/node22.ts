/**
 * A Node 22 binary for the tools that need it (the MCP conformance suite): PARLEY_NODE22, or the one
 * `npm run conformance:node` installs from the npm registry into .cache/node22 (`.ci/run` does that).
 * Not a dev dependency of the project itself: the `node` package's bin would shadow the project's Node 20
 * in every npm script.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CACHED = fileURLToPath(new URL('../../.cache/node22/node_modules/node/bin/node', import.meta.url));

export const NODE22_MISSING = 'no Node 22 binary: run `npm run conformance:node` (or set PARLEY_NODE22), skipped';

/** The path of a Node 22 binary, or undefined when there is none. */
export function node22(): string | undefined {
  const path = process.env.PARLEY_NODE22 ?? CACHED;
  if (!existsSync(path)) return undefined;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return version.startsWith('v22.') ? path : undefined;
}
