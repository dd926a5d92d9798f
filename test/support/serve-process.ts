/**
 * `parley serve` as a real child process of bin/parley.js on a given data dir, for the tests that stop
 * it the hard way (kill -9) or the polite way (SIGTERM) and start it again on the same data dir.
 * bin/parley.js runs the compiled dist/: call ensureBuilt() (test/support/build.ts) in a beforeAll first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

export { serveProcess, type ServeProcess } from './serve-one.ts';
import { serveProcess, type ServeProcess } from './serve-one.ts';

/**
 * The servers and data dirs of one test file that starts `parley serve` processes: every server still
 * running after a test is killed (kill -9), every data dir is removed after the file. `env` is added to
 * every server the file starts (a test's own `env` wins).
 */
export function useServeProcesses(prefix: string, env: Record<string, string> | (() => Record<string, string>) = {}) {
  const servers: ServeProcess[] = [];
  const dataDirs: string[] = [];
  afterEach(() => {
    for (const s of servers.splice(0))
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  });
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** The servers started by the current test, oldest first (their logs help a failure). */
    servers,
    tempDataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
      dataDirs.push(dir);
      return dir;
    },
    async serve(dataDir: string, extra: Record<string, string> = {}): Promise<ServeProcess> {
      const s = await serveProcess(dataDir, { ...(typeof env === 'function' ? env() : env), ...extra });
      servers.push(s);
      return s;
    },
  };
}
