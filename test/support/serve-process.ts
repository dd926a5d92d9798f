/**
 * `parley serve` as a real child process of bin/parley.js on a given data dir, for the tests that stop
 * it the hard way (kill -9) or the polite way (SIGTERM) and start it again on the same data dir.
 * bin/parley.js runs the compiled dist/: call ensureBuilt() (test/support/build.ts) in a beforeAll first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/parley.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr so far (its log). */
  log(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment minus every model/Parley setting, so the scripted model answers. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  );
  return { ...env, ...extra };
}

/** Starts `parley serve` on a free port over `dataDir` and resolves once it listens. */
export async function serveProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: cleanEnv({ PARLEY_DATA_DIR: dataDir, PARLEY_PORT: '0', ...env }),
    cwd: ROOT,
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', () => undefined);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`parley serve did not listen in time:\n${stderr}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stderr.on('data', check);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`parley serve exited before listening:\n${stderr}`));
    });
  });
  return { child, url, log: () => stderr, exit };
}

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
