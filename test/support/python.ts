/**
 * Python peers for tests (issue 45): a virtual environment with the packages pinned in
 * test/python/requirements.txt (the reference SDKs: a2a-sdk, mcp, langgraph), made once with python3's
 * own `venv` and pip and reused, in ~/.cache/parley/python-venv/<hash of the requirements and the Python
 * version> (PARLEY_TEST_PYTHON_VENVS names another folder). Outside the checkout, so a CI run in a fresh
 * clone reuses the venv an earlier run made on the same machine. Another set of pins gets another folder;
 * a folder without its `.ready` mark (a make that died) is made again. Test files that start at once on a fresh machine make it once: the first takes a lock
 * (a folder made with mkdir), the others wait for the mark. The scripts in test/python/ run with its
 * interpreter. Where python3 is missing, `pythonMissing()` says why and the suites skip; CI has it.
 * Parley itself never needs Python.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PYTHON_DIR = join(ROOT, 'test', 'python');
const REQUIREMENTS = join(PYTHON_DIR, 'requirements.txt');
const VENVS = process.env.PARLEY_TEST_PYTHON_VENVS ?? join(homedir(), '.cache', 'parley', 'python-venv');
/** A fresh make takes 1–2 min on an idle 2-core machine, 8 under heavy load; the hooks that make the venv wait this long. */
export const PYTHON_VENV_TIMEOUT_MS = 900_000;
/** A lock older than this was left by a make that died. */
const STALE_LOCK_MS = PYTHON_VENV_TIMEOUT_MS;

const run = promisify(execFile);
/** Output as it is written (a test reads it live), and no __pycache__ left in test/python/. */
const PYTHON_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' };

/** `python3 --version` ("Python 3.11.7"), or undefined where there is no python3. */
function pythonVersion(): string | undefined {
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? (probe.stdout || probe.stderr).trim() : undefined;
}

/** Why the Python peer tests cannot run here, or undefined when they can. */
export function pythonMissing(): string | undefined {
  return pythonVersion()
    ? undefined
    : 'skipped: no python3 on PATH; the Python peer tests (test/python/) need Python 3.11 with pip and venv (CI has it)';
}

export interface PythonVenv {
  dir: string;
  python: string;
}

function venvDir(): string {
  const key = createHash('sha256')
    .update(readFileSync(REQUIREMENTS))
    .update(pythonVersion() ?? '')
    .digest('hex')
    .slice(0, 16);
  return join(VENVS, key);
}

async function make(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  await run('python3', ['-m', 'venv', dir], { timeout: PYTHON_VENV_TIMEOUT_MS });
  const pip = join(dir, 'bin', 'pip');
  const flags = ['--disable-pip-version-check', '--no-input', '--quiet'];
  await run(pip, ['install', ...flags, '-r', REQUIREMENTS], {
    timeout: PYTHON_VENV_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  writeFileSync(join(dir, '.ready'), `${new Date().toISOString()}\n`);
}

/** The venv of the current requirements: made on first use, then reused. */
export async function pythonVenv(): Promise<PythonVenv> {
  const dir = venvDir();
  const venv = { dir, python: join(dir, 'bin', 'python') };
  const ready = () => existsSync(join(dir, '.ready')) && existsSync(venv.python);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + PYTHON_VENV_TIMEOUT_MS;
  mkdirSync(VENVS, { recursive: true });
  while (!ready()) {
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is making it: wait for its mark (or take over a lock it left behind).
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the Python venv ${dir} was not made in time`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!ready()) await make(dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return venv;
}

export interface PythonResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs test/python/<script> with the venv's interpreter to its end. */
export function runPython(
  venv: PythonVenv,
  script: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<PythonResult> {
  return new Promise((resolve) => {
    const child = spawn(venv.python, [join(PYTHON_DIR, script), ...args], {
      env: { ...process.env, ...PYTHON_ENV, ...options.env },
      cwd: PYTHON_DIR,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON object a script printed last, or an error showing what it wrote (its traceback). */
export function pythonJson<T>(result: PythonResult): T {
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  try {
    if (result.code !== 0) throw new Error(`exit ${result.code}`);
    return JSON.parse(last) as T;
  } catch (err) {
    throw new Error(`python script failed (${(err as Error).message}):\n${result.stderr}\n${result.stdout}`);
  }
}

export interface PythonServer {
  child: ChildProcess;
  url: string;
  log(): string;
  close(): Promise<void>;
}

/**
 * Starts a long-running test/python/<script> that serves on 127.0.0.1:<port> and resolves once
 * `readyPath` answers 200 there.
 */
export async function startPythonServer(
  venv: PythonVenv,
  script: string,
  port: number,
  readyPath: string,
): Promise<PythonServer> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(venv.python, [join(PYTHON_DIR, script), String(port)], {
    env: { ...process.env, ...PYTHON_ENV },
    cwd: PYTHON_DIR,
  });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Importing langgraph and uvicorn takes 10–15 s on a loaded 2-core machine.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited before serving:\n${log}`);
    const ok = await fetch(`${url}${readyPath}`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not serve ${readyPath} in time:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    log: () => log,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
