// The console (console/, docs/console.md) built by Vite into dist/console, as part of `npm run build`.
// Each asset also gets a .gz twin the server sends to browsers that take gzip, and the build prints the
// initial bundle (what index.html loads before the first paint) against its budget: 300 KB gzipped.
// Plain JavaScript: it runs before there is a build.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './build-state.js';

export const INITIAL_BUNDLE_BUDGET_BYTES = 300 * 1024;

/** The files index.html loads before the page can paint: its module script, module preloads and stylesheets. */
export function initialAssets(indexHtml) {
  return [...indexHtml.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
}

export async function buildConsole(outDir) {
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn('parley: vite is not installed (npm ci without dev dependencies?): the console is not built.');
    return;
  }
  // A build started from the tests inherits NODE_ENV=test, which would bundle React's development build.
  process.env.NODE_ENV = 'production';
  await vite.build({
    mode: 'production',
    configFile: join(ROOT, 'console', 'vite.config.ts'),
    build: { outDir, emptyOutDir: true },
    logLevel: 'warn',
  });
  const assets = join(outDir, 'assets');
  const gzipped = new Map();
  for (const name of readdirSync(assets)) {
    const zipped = gzipSync(readFileSync(join(assets, name)), { level: 9 });
    writeFileSync(join(assets, `${name}.gz`), zipped);
    gzipped.set(`assets/${name}`, zipped.length);
  }
  const initial = initialAssets(readFileSync(join(outDir, 'index.html'), 'utf8'));
  const bytes = initial.reduce((sum, file) => sum + (gzipped.get(file) ?? 0), 0);
  const all = [...gzipped.values()].reduce((a, b) => a + b, 0);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `parley: console built: initial bundle ${kb(bytes)} gzipped (budget ${kb(INITIAL_BUNDLE_BUDGET_BYTES)}), all assets ${kb(all)}`,
  );
  if (bytes > INITIAL_BUNDLE_BUDGET_BYTES)
    throw new Error(
      `the console's initial bundle is ${kb(bytes)} gzipped, over its ${kb(INITIAL_BUNDLE_BUDGET_BYTES)} budget`,
    );
}
