/**
 * For tests that launch bin/parley.js, which runs the compiled dist/ and refuses a stale one: builds it
 * first when src/ changed (a no-op otherwise). bin/build-state.js holds a lock while building, so two
 * test files doing this at once build once. Only the tests that need dist/ pay for a build.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A build from scratch takes ~25 s on a loaded 2-core machine: the beforeAll that calls this needs this long. */
export const BUILD_TIMEOUT_MS = 180_000;

export function ensureBuilt(): void {
  const script = fileURLToPath(new URL('../../bin/build-state.js', import.meta.url));
  const result = spawnSync(process.execPath, [script, 'ensure'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building dist/ for the CLI tests failed: run `npm run build` to see why');
}
