/**
 * Once before any test file: brings dist/ up to date (a no-op when it is), because the CLI tests launch
 * bin/parley.js, which runs the compiled build and refuses a stale one. Once here rather than per file,
 * so parallel workers never run two builds into the same dist/.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const script = fileURLToPath(new URL('../bin/build-state.js', import.meta.url));
  const result = spawnSync(process.execPath, [script, 'ensure'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the build for the CLI tests failed: run `npm run build` to see why');
}
