// Cuts node_modules down to what the container runs (Containerfile, build stage; docs/deployment.md).
// dist/ is one bundle (bin/build.js): every dependency is inside it except the externals below, which Node
// loads at run time, and the MCP servers mcp_config.json starts as processes. This keeps those and what they
// need, following package-lock.json the way Node resolves a require, and deletes every other package.
// kuzu ships the prebuilt addon of every platform and its C++ source (554 MB); its install script has already
// copied this platform's to kuzujs.node, so the rest goes, with cmake-js, which only builds it from source.
//   node deploy/prune-runtime.mjs [root]
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? process.cwd();
const RUNTIME = [
  'kuzu',
  'lmdb',
  'neo4j-driver',
  'pg',
  '@opentelemetry/api',
  '@opentelemetry/sdk-node',
  '@modelcontextprotocol/server-filesystem',
  '@modelcontextprotocol/server-memory',
];
/** Build-time dependencies of a kept package (kuzu builds from source with these; its addon is prebuilt). */
const BUILD_ONLY = new Set(['cmake-js', 'node-addon-api']);
/** Inside kept packages, never read at run time. */
const KUZU_EXTRAS = ['kuzu/kuzu-source', 'kuzu/prebuilt'];

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const packages = lock.packages;

/** Where Node finds `name` required from the package at `from` ('' is the project): the nearest node_modules up. */
function resolve(name, from) {
  for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
    const candidate = `${dir ? dir + '/' : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

const keep = new Set();
const queue = RUNTIME.map((name) => {
  const found = resolve(name, '');
  if (!found) throw new Error(`prune-runtime: ${name} is not in package-lock.json`);
  return found;
});
while (queue.length > 0) {
  const path = queue.pop();
  if (keep.has(path)) continue;
  keep.add(path);
  const entry = packages[path];
  const deps = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
  for (const name of Object.keys(deps)) {
    if (BUILD_ONLY.has(name)) continue;
    const found = resolve(name, path);
    if (found && !packages[found].dev) queue.push(found);
  }
}

let removed = 0;
for (const path of Object.keys(packages)) {
  if (!path.startsWith('node_modules/') || keep.has(path)) continue;
  rmSync(join(root, path), { recursive: true, force: true });
  removed++;
}
for (const extra of KUZU_EXTRAS) rmSync(join(root, 'node_modules', extra), { recursive: true, force: true });
console.log(`prune-runtime: kept ${keep.size} packages for the runtime, removed ${removed}`);
