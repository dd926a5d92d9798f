/**
 * GET /ready tells the truth about `parley serve`'s start-up (docs/deployment.md, "Health and readiness"):
 * on a fresh data dir it answers 503 with `knowledge: "ingesting: …"` while a request that plans a run
 * would wait for the start-up ingestion, and 200 once it would not; on a restart with the last
 * discovered lists in the graph, 200 at once. /health stays 200 throughout; `parley status` says the same.
 * The real process (bin/parley.js) with an MCP server that takes seconds to start (the ingestion fixture).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses } from '../../support/serve-process.ts';

const { serve, tempDataDir } = useServeProcesses('parley-serve-ready');
const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
const STDIO_FIXTURE = resolve('test/fixtures/knowledge/mcp-stdio-server.ts');
/** Long enough to ask /ready and `parley status` while the ingestion waits on it, under load. */
const SLOW_START_MS = 6000;

beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

/** An mcp_config.json with one server, `slow`, that answers only after SLOW_START_MS. */
function slowMcpConfig(dataDir: string): string {
  const path = join(dataDir, 'mcp_config.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        slow: {
          description: 'Looks up invoices (starts slowly).',
          command: process.execPath,
          args: ['--import', 'tsx', STDIO_FIXTURE],
          cwd: process.cwd(),
          env: { FIXTURE_TOOLS: 'lookup_invoice,greet', FIXTURE_START_DELAY_MS: String(SLOW_START_MS) },
        },
      },
    }),
  );
  return path;
}

interface Readiness {
  status: number;
  body: { ready: boolean; checks: Record<string, string> };
}

const ready = async (url: string): Promise<Readiness> => {
  const res = await fetch(`${url}/ready`);
  return { status: res.status, body: (await res.json()) as Readiness['body'] };
};

/** `parley status` (its text) for a data dir, as a user runs it. */
async function statusText(dataDir: string, ...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'status', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PARLEY_DATA_DIR: dataDir },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((done) => child.on('exit', done));
  return out;
}

/** `parley status --json` for a data dir. */
const statusOf = async (dataDir: string) => JSON.parse(await statusText(dataDir, '--json')) as Record<string, unknown>;

describe('GET /ready during the start-up ingestion', () => {
  it('is 503 "ingesting" while a request would wait for it, 200 once it ended, and 200 at once on a restart', async () => {
    const dataDir = tempDataDir();
    const env = { PARLEY_MCP_CONFIG: slowMcpConfig(dataDir) };
    const first = await serve(dataDir, env);

    // Listening, alive, not ready: the fresh graph does not know `slow` yet.
    const early = await ready(first.url);
    expect(early.status).toBe(503);
    expect(early.body.ready).toBe(false);
    expect(early.body.checks.knowledge).toMatch(
      /^ingesting: .*mcp:slow, 1 specialist folder not yet in the knowledge graph/,
    );
    expect(early.body.checks['knowledge-store']).toBe('ok');
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect(first.log()).not.toContain('knowledge ingestion finished');
    // `parley status` says the same thing to the user of this machine.
    await vi.waitFor(async () => expect((await statusOf(dataDir)).knowledge).toMatch(/^ingesting: /), {
      timeout: 10_000,
    });

    // Ready once the ingestion has ended; from then on a request that plans a run does not wait.
    await vi.waitFor(async () => expect((await ready(first.url)).status).toBe(200), {
      timeout: 40_000,
      interval: 100,
    });
    expect(first.log()).toContain('knowledge ingestion finished');
    expect((await ready(first.url)).body.checks.knowledge).toBe('ok');
    const listed = (await (await fetch(`${first.url}/api/specialists`)).json()) as {
      specialists: { id: string; tools: string[] }[];
    };
    expect(listed.specialists.find((s) => s.id === 'slow')?.tools).toContain('slow/lookup_invoice');
    expect((await statusOf(dataDir)).knowledge).toBe('ready');
    expect(await statusText(dataDir)).toContain('\n  registry ready\n');

    // A restart: the last discovered lists serve at once, so it is ready while `slow` is discovered again.
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);
    const second = await serve(dataDir, env);
    const atOnce = await ready(second.url);
    expect(second.log()).not.toContain('knowledge ingestion finished');
    expect(atOnce).toMatchObject({ status: 200, body: { ready: true } });
    expect(atOnce.body.checks.knowledge).toBe('ok');
  }, 120_000);
});
