import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpToolHost } from '../../../src/tools/mcp-host.ts';
import type { McpServerSpec } from '../../../src/tools/server-spec.ts';
import type { Config } from '../../../src/config.ts';
import type { ToolCallContext } from '../../../src/tools/types.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';

const STDIO_SERVER = join(import.meta.dirname, '../../fixtures/tools/stdio-server.ts');

const settings = (over: Partial<Config['tools']> = {}): Config['tools'] => ({
  connect: 'lazy',
  timeoutMs: 10_000,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  resultMaxChars: 20_000,
  ...over,
});

const ctx = (over: Partial<ToolCallContext> = {}): ToolCallContext => ({
  runId: 'run-1',
  stepId: 'step-1',
  toolCallId: 'call-1',
  signal: new AbortController().signal,
  ...over,
});

const stdioSpec = (env: Record<string, string> = {}): McpServerSpec => ({
  command: process.execPath,
  args: ['--import', 'tsx', STDIO_SERVER],
  env,
});

let http: FixtureHttpServer;
const hosts: McpToolHost[] = [];
const host = (servers: Record<string, McpServerSpec>, over: Partial<Config['tools']> = {}) => {
  const h = new McpToolHost({ servers, settings: settings(over) });
  hosts.push(h);
  return h;
};

beforeAll(async () => {
  http = await startFixtureHttpServer();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});
afterAll(async () => {
  await http.close();
});

describe('McpToolHost over Streamable HTTP and stdio', () => {
  it('lists tools namespaced server/tool with annotations and config overrides', async () => {
    const h = host({
      web: {
        url: http.mcpUrl,
        requireApproval: ['read_note'],
        disabledTools: ['fail'],
        tools: { big: { timeoutMs: 1234 } },
      },
      local: stdioSpec(),
      off: { command: 'does-not-exist', disabled: true },
    });
    const tools = await h.listTools();
    const ids = tools.map((t) => t.id).sort();
    expect(ids).toContain('web/write_note');
    expect(ids).toContain('local/write_note');
    expect(ids).not.toContain('web/fail');
    expect(ids.some((id) => id.startsWith('off/'))).toBe(false);
    const write = tools.find((t) => t.id === 'web/write_note')!;
    expect(write).toMatchObject({ server: 'web', name: 'write_note', annotations: { destructiveHint: true } });
    expect(write.inputSchema).toMatchObject({ type: 'object', required: ['path', 'content'] });
    expect(tools.find((t) => t.id === 'web/read_note')?.requireApproval).toBe(true);
    expect(tools.find((t) => t.id === 'web/big')?.timeoutMs).toBe(1234);
    expect(await h.getTool('local/read_note')).toMatchObject({ annotations: { readOnlyHint: true } });
  });

  it('a raw mcpServers map goes through the mcp_config.json loader; a bad entry is a clear error', () => {
    expect(() => host({ bad: { url: 'ftp://example.com/mcp' } })).toThrow(/mcpServers\.bad/);
  });

  it('calls tools on both transports; tool-level errors come back as ok:false', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-tools-'));
    const log = join(dir, 'writes.jsonl');
    const h = host({ web: { url: http.mcpUrl }, local: stdioSpec({ FIXTURE_LOG: log }) });
    const web = await h.callTool('web/write_note', { path: 'a.txt', content: 'hello' }, ctx());
    expect(web).toMatchObject({ ok: true, text: 'wrote 5 chars to a.txt' });
    expect(http.state.writes).toContainEqual({ path: 'a.txt', content: 'hello' });
    const local = await h.callTool('local/write_note', { path: 'b.txt', content: 'hi' }, ctx());
    expect(local.ok).toBe(true);
    expect(JSON.parse(readFileSync(log, 'utf8').trim())).toMatchObject({ path: 'b.txt', content: 'hi' });
    const failed = await h.callTool('web/fail', {}, ctx());
    expect(failed).toMatchObject({ ok: false, error: 'disk quota exceeded' });
    expect(await h.callTool('nope/x', {}, ctx())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown tool/),
    });
    expect(h.status().find((s) => s.server === 'web')).toMatchObject({ connected: true, breaker: 'closed' });
  });

  it('truncates large results for the model and keeps the whole result', async () => {
    const h = host({ web: { url: http.mcpUrl } }, { resultMaxChars: 100 });
    const r = await h.callTool('web/big', { chars: 5000 }, ctx());
    expect(r.ok).toBe(true);
    expect(r.text.startsWith('x'.repeat(100) + '\n\n[truncated: showing the first 100 of 5000 characters')).toBe(true);
    expect((r.full as { content: { text: string }[] }).content[0]!.text).toHaveLength(5000);
  });

  it('a hung tool hits its per-tool timeout and the server sees the cancellation', async () => {
    const h = host({ web: { url: http.mcpUrl, tools: { hang: { timeoutMs: 300 } } } });
    const before = http.state.cancelled;
    const started = Date.now();
    const r = await h.callTool('web/hang', {}, ctx());
    expect(r).toMatchObject({ ok: false, error: 'tool web/hang timed out after 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await expect.poll(() => http.state.cancelled).toBe(before + 1);
  });

  it('an abort signal cancels an in-flight call', async () => {
    const h = host({ web: { url: http.mcpUrl } });
    const controller = new AbortController();
    const pending = h.callTool('web/hang', {}, ctx({ signal: controller.signal }));
    await expect.poll(() => http.state.calls.filter((c) => c === 'hang').length).toBeGreaterThan(0);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: expect.stringMatching(/cancelled/) });
    expect(h.status()[0]!.breaker).toBe('closed');
  });

  it('the circuit breaker opens after N consecutive failures, fails fast, and recovers after the cooldown', async () => {
    const h = host(
      { web: { url: http.mcpUrl, tools: { hang: { timeoutMs: 150 } } } },
      { breakerThreshold: 2, breakerCooldownMs: 600 },
    );
    expect((await h.callTool('web/hang', {}, ctx())).error).toMatch(/timed out/);
    expect(h.status()[0]!.breaker).toBe('closed');
    expect((await h.callTool('web/hang', {}, ctx())).error).toMatch(/timed out/);
    expect(h.status()[0]!.breaker).toBe('open');

    const callsBefore = http.state.calls.length;
    const fast = await h.callTool('web/read_note', { path: 'x' }, ctx());
    expect(fast).toMatchObject({
      ok: false,
      error: expect.stringMatching(/circuit breaker open.*timed out after 150 ms/),
    });
    expect(http.state.calls.length).toBe(callsBefore); // never reached the server

    await new Promise((r) => setTimeout(r, 650));
    expect(h.status()[0]!.breaker).toBe('half-open');
    expect(await h.callTool('web/read_note', { path: 'x' }, ctx())).toMatchObject({
      ok: true,
      text: 'note at x: hello',
    });
    expect(h.status()[0]!.breaker).toBe('closed');
  });

  it('an unreachable server is a clear error and counts towards its breaker', async () => {
    const h = host(
      {
        gone: { url: 'http://127.0.0.1:9/mcp' },
        broken: { command: process.execPath, args: ['-e', 'process.exit(1)'] },
      },
      { breakerThreshold: 2 },
    );
    const first = await h.callTool('gone/anything', {}, ctx());
    expect(first).toMatchObject({ ok: false, error: expect.stringMatching(/cannot connect to MCP server 'gone'/) });
    expect(await h.callTool('broken/anything', {}, ctx())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/cannot connect to MCP server 'broken'/),
    });
    await h.callTool('gone/anything', {}, ctx());
    expect(h.status().find((s) => s.server === 'gone')).toMatchObject({ connected: false, breaker: 'open' });
    expect(await h.listTools()).toEqual([]);
  });

  it('a crashed stdio server is reported, then reconnected on the next call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-tools-'));
    const log = join(dir, 'writes.jsonl');
    const h = host({ local: stdioSpec({ FIXTURE_LOG: log }) });
    expect((await h.callTool('local/write_note', { path: 'a', content: '1' }, ctx())).ok).toBe(true);
    const crashed = await h.callTool('local/crash', {}, ctx());
    expect(crashed).toMatchObject({
      ok: false,
      error: expect.stringMatching(/MCP server 'local' failed during local\/crash/),
    });
    await expect.poll(() => h.status()[0]!.connected).toBe(false);
    expect((await h.callTool('local/write_note', { path: 'b', content: '2' }, ctx())).ok).toBe(true);
    const pids = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { pid: number }).pid);
    expect(pids).toHaveLength(2);
    expect(pids[0]).not.toBe(pids[1]);
    expect(h.status()[0]).toMatchObject({ connected: true, breaker: 'closed' });
  });

  it('reconnects when the HTTP server forgot the session (server restart)', async () => {
    const h = host({ web: { url: http.mcpUrl } });
    expect((await h.callTool('web/read_note', { path: 'a' }, ctx())).ok).toBe(true);
    const sessionsBefore = http.sessions;
    await http.dropSessions();
    const result = await h.callTool('web/read_note', { path: 'b' }, ctx());
    expect(result).toMatchObject({ ok: true, text: 'note at b: hello' });
    expect(http.sessions).toBe(sessionsBefore + 1);
  });
});
