/** The `parley` command as a user runs it: a child process of bin/parley.js. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// bin/parley.js runs the compiled dist/.
beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);

/** The environment minus every model/Parley setting, so the scripted model is the default. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_') && !k.startsWith('OTEL_'),
    ),
  );
  return { ...env, PARLEY_HOME: NO_HOME, ...extra };
}

const children: ReturnType<typeof spawn>[] = [];
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});
function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
  dataDirs.push(dir);
  return dir;
}
// A failed assertion must not leave a server running.
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Each child gets its own data folder: Kuzu allows one process per database file. */
function parley(args: string[], env: Record<string, string> = {}) {
  const dataDir = tempDataDir();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({ PARLEY_DATA_DIR: dataDir, ...env }),
    cwd: ROOT,
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, out: () => stdout, err: () => stderr };
}

describe('parley run', () => {
  it('runs the graph live: routing, plan, steps and verification on stderr, the answer on stdout, then usage and cost', async () => {
    const p = parley(['run', 'Design a caching layer for our TypeScript API']);
    expect(await p.exit).toBe(0);
    expect(p.out()).toContain('Design a caching layer for our TypeScript API');
    expect(p.out()).not.toMatch(/Steps used/);
    const err = p.err();
    // The sources come as data on run.finished; the terminal shows them on stderr, apart from the answer.
    expect(err).toMatch(/sources: \[s1\] \S+/);
    expect(err).toMatch(/SCRIPTED/);
    expect(err).toMatch(/route: llm_plan/);
    expect(err).toMatch(/plan \(round 1\):\n {2}s1 \[/);
    expect(err).toMatch(/✓ s1 succeeded/);
    expect(err).toMatch(/verify round 1: score 0\.90 → synthesize/);
    expect(err).toMatch(
      /— completed · [\d.]+ s · [1-9]\d* in \/ [1-9]\d* out tokens · \$0\.0000 · [1-9]\d* model calls/,
    );
  });

  it('asks for a question when none is given', async () => {
    const p = parley(['run']);
    expect(await p.exit).toBe(2);
    expect(p.err()).toMatch(/give the question/);
  });
});

describe('parley ingest', () => {
  it('ingests the roster and the shipped MCP servers and prints the report', async () => {
    const p = parley(['ingest']);
    expect(await p.exit).toBe(0);
    const report = JSON.parse(p.out()) as {
      specialists: number;
      tools: number;
      sources: { id: string; outcome: string }[];
    };
    expect(report.specialists).toBeGreaterThanOrEqual(10);
    expect(report.tools).toBeGreaterThan(0);
    expect(report.sources.map((s) => s.id)).toEqual(expect.arrayContaining(['mcp:filesystem', 'mcp:memory']));
  });
});

describe('parley mcp', () => {
  it('serves MCP on stdio: a real MCP client lists the tools and asks a question', async () => {
    const dataDir = tempDataDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: ROOT,
      env: cleanEnv({
        PARLEY_DATA_DIR: dataDir,
        PARLEY_MCP_CONFIG: 'test/fixtures/mcp-empty.json',
        PARLEY_LOG_LEVEL: 'warn',
        // `parley mcp` bridges to a service it starts (docs/service.md): let it go right after the test.
        PARLEY_SERVICE_IDLE_EXIT_MS: '2000',
      }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['ask', 'council', 'list_specialists', 'approve']),
      );
      const result = await client.callTool({
        name: 'ask',
        arguments: { query: 'Review the security of our login flow' },
      });
      expect(result.isError).toBeFalsy();
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
      expect(text).toContain('Review the security of our login flow');
    } finally {
      await client.close();
    }
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
    expect(p.err().trim()).toBe(
      'parley: configuration error: PARLEY_PRICES_FILE="no-such-prices.json" is invalid: no such file',
    );
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
