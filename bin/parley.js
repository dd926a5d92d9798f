#!/usr/bin/env node
// Runs the compiled CLI in dist/ (`npm run build`; `npm start` builds first). A dist/ older than src/
// is refused rather than run: it would silently be yesterday's code. `npm run dev` runs src/ through tsx.
import module from 'node:module';
import { staleReason } from './build-state.js';

const stale = staleReason();
if (stale) {
  process.stderr.write(
    `parley: the compiled build is out of date: ${stale}. Run \`npm run build\` (or \`npm start\`, which builds first).\n`,
  );
  process.exit(1);
}
// Node 22.1+ can keep V8's compiled code of dist/ between starts (in the OS temp dir); Node 20 has no
// such cache and skips this.
module.enableCompileCache?.();
await import('../dist/cli.js');
