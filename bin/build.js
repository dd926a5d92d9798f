// `npm run build`: compiles src/ into dist/, the JavaScript bin/parley.js runs, then stamps it current.
//
// One ESM bundle with code splitting rather than one output file per source file: Node 20 spends most
// of a cold start resolving and compiling ~1,900 module files of src/ and its dependencies, and a
// bundle turns that into a handful of files (figures in docs/performance.md, `npm run bench:startup`).
// Splitting keeps the lazy `await import()`s lazy: `parley --version` or `parley mcp` load only their
// chunks. esbuild is the transpiler tsx already runs the tests with, so tests and production execute
// the same JavaScript; type-checking stays `npm run typecheck`.
// Plain JavaScript: it runs before there is a build.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, stamp } from './build-state.js';
import { buildConsole } from './build-console.js';

/**
 * Left to Node at run time: kuzu and lmdb are native addons (lmdb finds its prebuilt binary relative to
 * its own package, which a bundle would break); neo4j-driver and the OpenTelemetry SDK load only
 * when chosen (NEO4J_URI, OTEL_*) and OpenTelemetry's instrumentations patch modules as Node loads them.
 */
// Native modules load their prebuilt binary relative to their own package: never bundled.
// @opentelemetry/api is bundled (~50 small CommonJS files Node would resolve and compile one by one at every
// start): it keeps its state on globalThis under a versioned symbol, so the SDK's own copy, loaded from
// node_modules when OTEL_* turns tracing on, registers the tracer provider the bundled copy reads.
const EXTERNAL = ['kuzu', 'lmdb', 'neo4j-driver', 'pg', '@opentelemetry/sdk-node'];

/**
 * V8 keeps a module's source text for as long as the module lives (lazy compilation, toString), as a
 * one-byte string when every character fits in Latin-1 and as a two-byte one, twice the size, when one
 * does not. esbuild already escapes non-ASCII in strings, templates, regexes and identifiers; what is
 * left is comments (a "→" or "—" in a doc comment), which made 8 of the chunks `parley serve` loads
 * two-byte: 3.7 MB of its idle heap (docs/performance.md, "Idle RSS"). The same \uXXXX escape is valid in
 * every place JavaScript could hold such a character, so this changes no program, only its encoding.
 */
const latin1Only = (text) =>
  text.replace(/[\u0100-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const outdir = join(ROOT, 'dist');
rmSync(outdir, { recursive: true, force: true });
const { outputFiles } = await build({
  absWorkingDir: ROOT,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  sourcemap: true,
  // Bundled CommonJS dependencies call require(); an ESM bundle has none unless it is made.
  banner: {
    js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);",
  },
  logLevel: 'warning',
  write: false,
});
for (const file of outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.path.endsWith('.js') ? latin1Only(file.text) : file.contents);
}
await buildConsole(join(outdir, 'console'));
stamp();
