/**
 * bin/parley.js launched as a user runs it, for the CLI tests: in a clean environment (no PARLEY_*, OPENAI_*
 * or OTEL_* setting of the machine leaks in; the test passes the ones it means), from the repository root
 * or the folder given, its output collected. Callers build dist/ first (support/build.ts ensureBuilt).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/parley.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ParleyProcess {
  exit: Promise<number | null>;
  out(): string;
  err(): string;
}

const LEAKS = ['PARLEY_', 'OPENAI_', 'OTEL_'];

export function runParley(args: string[], env: Record<string, string>, cwd = ROOT): ParleyProcess {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKS.some((p) => k.startsWith(p))));
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, ...env }, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exit, out: () => stdout, err: () => stderr };
}
