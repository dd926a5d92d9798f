/**
 * One `parley serve` as a real child process of bin/parley.js (the compiled dist/) on a data dir, with
 * the scripted model: what the tests that stop it the hard way and the benchmarks that run several start.
 * No vitest here: bench/ uses it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
