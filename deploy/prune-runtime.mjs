// Cuts node_modules down to what the container runs (Containerfile, build stage; docs/deployment.md).
// dist/ is one bundle (bin/build.js): every dependency is inside it except its EXTERNAL ones, which Node loads at
// run time, and the MCP servers mcp_config.json starts as processes. This keeps those (read from those two files)
// and what they need, following package-lock.json the way Node resolves a require, and deletes every other package.
// kuzu ships the prebuilt addon of every platform and its C++ source (554 MB); its install script has already
// copied this platform's to kuzujs.node, so the rest goes, with cmake-js, which only builds it from source.
//   node deploy/prune-runtime.mjs [root]
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? process.cwd();
const readJson = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'));

/** What the bundle leaves to Node: bin/build.js's EXTERNAL list ('@scope/*' is every dependency of that scope). */
function bundleExternals() {
  const list = /const EXTERNAL = (\[[^\]]*\])/.exec(readFileSync(join(root, 'bin/build.js'), 'utf8'));
  if (!list) throw new Error('prune-runtime: no `const EXTERNAL = [...]` in bin/build.js');
  const dependencies = Object.keys(readJson('package.json').dependencies);
  return JSON.parse(list[1].replaceAll("'", '"')).flatMap((name) =>
    name.endsWith('/*') ? dependencies.filter((d) => d.startsWith(name.slice(0, -1))) : [name],
  );
}

/** The packages mcp_config.json starts as MCP servers (`${PARLEY_PACKAGE_DIR}/node_modules/<package>/…`). */
function shippedServers() {
  const args = Object.values(readJson('mcp_config.json').mcpServers).flatMap((server) => server.args ?? []);
  return args
    .map((arg) => /\$\{PARLEY_PACKAGE_DIR\}\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(arg)?.[1])
    .filter(Boolean);
}

const RUNTIME = [...new Set([...bundleExternals(), ...shippedServers()])];
/** Build-time dependencies of a kept package (kuzu builds from source with these; its addon is prebuilt). */
const BUILD_ONLY = new Set(['cmake-js', 'node-addon-api']);
/** Inside kept packages, never read at run time. */
const KUZU_EXTRAS = ['kuzu/kuzu-source', 'kuzu/prebuilt'];

const lock = readJson('package-lock.json');
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
console.log(`prune-runtime: kept ${keep.size} packages for ${RUNTIME.join(', ')}; removed ${removed}`);
