/** The `parley` command as a user runs it: a child process of bin/parley.js. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));

/** The environment minus every model/Parley setting, so the scripted model is the default. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_')));
  return { ...env, ...extra };
}

const children: ReturnType<typeof spawn>[] = [];
// A failed assertion must not leave a server running.
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function parley(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), cwd: fileURLToPath(new URL('../../../', import.meta.url)) });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, out: () => stdout, err: () => stderr };
}

describe('parley run', () => {
  it('prints a streamed answer from the scripted model, then usage and cost', async () => {
    const p = parley(['run', 'What is a knowledge graph?']);
    expect(await p.exit).toBe(0);
    expect(p.out()).toContain('What is a knowledge graph?');
    expect(p.out().trim().split('\n')).toHaveLength(1);
    expect(p.err()).toMatch(/usage: model scripted, \d+ input tokens \(0 cached\), [1-9]\d* output tokens, cost \$0\.000000/);
    expect(p.err()).toMatch(/SCRIPTED/);
  });

  it('asks for a question when none is given', async () => {
    const p = parley(['run']);
    expect(await p.exit).toBe(2);
    expect(p.err()).toMatch(/give the question/);
  });
});

describe('parley', () => {
  it('prints usage and exits 2 on an unknown command', async () => {
    const p = parley(['frobnicate']);
    expect(await p.exit).toBe(2);
    expect(p.err()).toMatch(/unknown command "frobnicate"/);
    expect(p.err()).toMatch(/parley run "<question>"/);
  });

  it('stops on a bad setting with one line naming it', async () => {
    const p = parley(['serve'], { PARLEY_PORT: 'eighty' });
    expect(await p.exit).toBe(2);
    expect(p.err().trim().split('\n')).toHaveLength(1);
    expect(p.err()).toMatch(/PARLEY_PORT="eighty" is invalid/);
  });

  it('stops before starting anything when the price catalog is missing', async () => {
    const p = parley(['run', 'hi'], { PARLEY_PRICES_FILE: 'no-such-prices.json' });
    expect(await p.exit).toBe(2);
    expect(p.err().trim()).toBe('parley: configuration error: PARLEY_PRICES_FILE="no-such-prices.json" is invalid: no such file');
  });

  it('serves, answers /health, and exits 0 on SIGTERM', async () => {
    const p = parley(['serve'], { PARLEY_PORT: '0' });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in: ${p.err()}`)), 15_000);
      p.child.stderr.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(p.err());
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    // A second server on the same port fails with a clear message and exits (nothing left running).
    const second = parley(['serve'], { PARLEY_PORT: new URL(url).port });
    expect(await second.exit).toBe(1);
    expect(second.err()).toMatch(/Cannot listen on 127\.0\.0\.1:\d+ \(PARLEY_HOST\/PARLEY_PORT\): .*EADDRINUSE/);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.err()).toMatch(/SIGTERM: shutting down/);
  });
});
