// Whether dist/ (the compiled build bin/parley.js runs) matches src/, and how to make it so.
//   node bin/build-state.js stamp    records a finished build (bin/build.js calls stamp() when it is done)
//   node bin/build-state.js ensure   builds when dist/ is missing or older than its inputs (npm start, the tests)
// The stamp, not each output's mtime, is what counts: tsc's incremental build leaves unchanged outputs alone.
// Plain JavaScript: it runs before there is a build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STAMP = join(ROOT, 'dist', '.built');
/** Held while a build runs, so two callers at once (two CLI test files, two `npm start`) build once. */
const LOCK = join(ROOT, '.build-lock');
const LOCK_STALE_MS = 10 * 60_000;
/** What the build reads: a change to any of these (or a file added to or removed from src/) makes dist/ stale. */
const INPUTS = ['src', 'console', 'package.json', 'bin/build.js', 'bin/build-console.js'];

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A directory's own mtime changes when an entry is added, removed or renamed.
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why dist/ cannot be run as it is, or undefined when it is current. */
export function staleReason() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return 'there is no build (dist/ is missing or was never completed)';
  }
  for (const input of INPUTS) {
    if (newestMtime(join(ROOT, input)) > built) return `${input} changed after the last build`;
  }
  return undefined;
}

/** Records that dist/ now matches its inputs. */
export function stamp() {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

/** Runs `npm run build` when dist/ is stale; throws when the build fails. */
export function ensureBuilt(log = (line) => process.stderr.write(line + '\n')) {
  if (!staleReason()) return;
  withLock(() => {
    const reason = staleReason(); // another caller may have built it while we waited
    if (!reason) return;
    log(`parley: building dist/ (${reason})`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = spawnSync(npm, ['run', '--silent', 'build'], {
      cwd: ROOT,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
    if (result.status !== 0) throw new Error('npm run build failed (see the errors above)');
  });
}

function withLock(fn) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock left by a build that was killed is taken over once it is clearly too old.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(pause, 0, 0, 200);
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const command = process.argv[2];
  if (command === 'stamp') stamp();
  else if (command === 'ensure') {
    try {
      ensureBuilt();
    } catch (err) {
      process.stderr.write(`parley: ${err.message}\n`);
      process.exitCode = 1;
    }
  } else {
    process.stderr.write('usage: node bin/build-state.js stamp|ensure\n');
    process.exitCode = 2;
  }
}
