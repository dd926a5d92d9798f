/**
 * Parley as an MCP server over Streamable HTTP on 127.0.0.1, driven by the MCP client SDK, against
 * the real engine (scripted model, Kuzu in memory, a real MCP fixture server whose write tool needs approval).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { approvalRoutes } from '../../../../src/hitl/routes.ts';
import { silentLogger } from '../../../../src/log.ts';
import { mcpRoutes } from '../../../../src/protocols/mcp/index.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import { NOTER, NOTE_QUERY, progressLog, structured, textOf, type AskResult } from '../../../support/protocols/mcp-helpers.ts';

const IDLE_MS = 300;
let fixture: FixtureHttpServer;
let parley: TestParley;
let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  fixture = await startFixtureHttpServer();
  parley = await createTestParley({ roster: false, specialists: [NOTER], mcpServers: { fx: { url: fixture.mcpUrl } } });
  const app = new Hono();
  app.route('/mcp', mcpRoutes({ engine: parley.engine, approvals: parley.approvals, store: parley.store, config: parley.config, logger: silentLogger }));
  // A second endpoint whose sessions expire quickly when idle.
  app.route('/mcp-short', mcpRoutes({ engine: parley.engine, approvals: parley.approvals, store: parley.store, config: parley.config, logger: silentLogger, sessionIdleMs: IDLE_MS }));
  app.route('/', approvalRoutes({ broker: parley.approvals }));
  server = await listen(app);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.close();
  await parley?.close();
  await fixture?.close();
});

async function connect(options: { path?: string; elicit?: (params: { message: string; requestedSchema: unknown }) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> } } = {}) {
  const client = new Client({ name: 'parley-test', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler('elicitation/create', async (req) => answer(req.params as { message: string; requestedSchema: unknown }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}${options.path ?? '/mcp'}`)));
  clients.push(client);
  return client;
}

const writesTo = (path: string) => fixture.state.writes.filter((w) => w.path === path).length;

describe('MCP server over Streamable HTTP', () => {
  it('lists its tools with descriptions and input schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['approve', 'ask', 'council', 'get_run', 'list_specialists', 'search_memory']);
    for (const t of tools) expect(t.description?.length).toBeGreaterThan(20);
    const ask = tools.find((t) => t.name === 'ask')!;
    expect(ask.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
    expect(ask.outputSchema).toBeDefined();
  });

  it('ask runs the graph, sends progress per node and step, and returns the answer with run id and usage', async () => {
    const client = await connect();
    const progress = progressLog();
    const result = await client.callTool({ name: 'ask', arguments: { query: 'noter: keep notes on two topics [[route:plan]] [[steps:2]]' } }, { onprogress: progress.onprogress });
    expect(result.isError).toBeFalsy();
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    expect(out.answer).toBeTruthy();
    expect(textOf(result)).toBe(out.answer);
    expect(out.usage.modelCalls).toBeGreaterThan(0);
    expect((await parley.engine.get(out.runId)?.result)?.status).toBe('completed');

    const messages = progress.seen.map((p) => p.message ?? '');
    expect(messages[0]).toBe(`run ${out.runId} started`);
    expect(messages).toContain('node router');
    expect(messages.filter((m) => /^step s\S* started/.test(m))).toHaveLength(2);
    expect(messages.filter((m) => /^step s\S* succeeded/.test(m))).toHaveLength(2);
    const values = progress.seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it('asks for approval through elicitation and resolves the broker with the answer', async () => {
    const asked: string[] = [];
    const client = await connect({
      elicit: ({ message, requestedSchema }) => {
        asked.push(message);
        const ids = Object.keys((requestedSchema as { properties: Record<string, unknown> }).properties);
        return { action: 'accept', content: Object.fromEntries(ids.map((id) => [id, 'accept'])) };
      },
    });
    const before = writesTo('a2a.txt');
    const result = await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } });
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('fx/write_note');
    expect(writesTo('a2a.txt')).toBe(before + 1);
    await expect.poll(async () => (await parley.store.listApprovals(out.runId)).map((a) => a.actor)).toEqual(['mcp-elicitation']);
  });

  it('a declined elicitation denies the tool call', async () => {
    const client = await connect({ elicit: () => ({ action: 'decline' }) });
    const before = writesTo('a2a.txt');
    const out = structured<AskResult>(await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } }));
    expect(out.status).toBe('completed');
    expect(writesTo('a2a.txt')).toBe(before);
  });

  it('without elicitation, announces the pending request id and the approve tool resolves it', async () => {
    const client = await connect();
    const progress = progressLog();
    const before = writesTo('a2a.txt');
    const asking = client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } }, { onprogress: progress.onprogress });
    const [, requestId] = await progress.waitFor(/approval needed: request (\S+)/);
    const pending = parley.approvals.get(requestId!);
    expect(pending?.kind).toBe('tool');
    const callIds = pending?.kind === 'tool' ? pending.toolCalls.map((c) => c.toolCallId) : [];

    const wrong = await client.callTool({ name: 'approve', arguments: { request_id: requestId, decisions: { 'not-a-call': 'accept' } } });
    expect(wrong.isError).toBe(true);
    expect(parley.approvals.get(requestId!)).toBeDefined();

    const approved = await client.callTool({ name: 'approve', arguments: { request_id: requestId, decisions: Object.fromEntries(callIds.map((id) => [id, 'accept'])) } });
    expect(approved.isError).toBeFalsy();
    expect(structured<AskResult>(await asking).status).toBe('completed');
    expect(writesTo('a2a.txt')).toBe(before + 1);
  });

  it('client cancellation cancels the run', async () => {
    const client = await connect();
    const progress = progressLog();
    const abort = new AbortController();
    const asking = client.callTool({ name: 'ask', arguments: { query: 'this never answers [[fault:hang]]' } }, { onprogress: progress.onprogress, signal: abort.signal });
    const [, runId] = await progress.waitFor(/^run (\S+) started/);
    await progress.waitFor(/^node router/);
    abort.abort();
    await expect(asking).rejects.toThrow();
    expect((await parley.engine.get(runId!)?.result)?.status).toBe('cancelled');
  });

  it('a failed run is a tool error result with the reason', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'ask', arguments: { query: 'this will break [[fault:500]]' } });
    expect(result.isError).toBe(true);
    const out = structured<AskResult>(result);
    expect(out.status).toBe('failed');
    expect(textOf(result)).toContain(`Run ${out.runId} failed`);
  });

  it('bad arguments are a tool error result, not a crash, and the session goes on', async () => {
    const client = await connect();
    const wrongType = await client.callTool({ name: 'ask', arguments: { query: 42 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/query/);
    const badMode = await client.callTool({ name: 'ask', arguments: { query: 'hi', mode: 'turbo' } });
    expect(badMode.isError).toBe(true);
    const unknownRun = await client.callTool({ name: 'get_run', arguments: { run_id: 'no-such-run' } });
    expect(unknownRun).toMatchObject({ isError: true });
    const unknownApproval = await client.callTool({ name: 'approve', arguments: { request_id: 'nope', decisions: {} } });
    expect(unknownApproval.isError).toBe(true);
    expect(textOf(unknownApproval)).toMatch(/not_found/);
    expect((await client.listTools()).tools.length).toBe(6);
  });

  // The SDK answered these with -32603 Internal error and a raw zod issue dump (found by the fuzz test).
  it('params that do not match the request\'s schema get -32602 with one plain line naming the field, and the session goes on', async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const raw = async (id: number, method: string, params: unknown) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const text = await res.text();
      const data = res.headers.get('content-type')?.startsWith('text/event-stream') ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
      return { status: res.status, body: JSON.parse(data) as { id: unknown; error?: { code: number; message: string } } };
    };
    const cases: [string, unknown, RegExp][] = [
      ['logging/setLevel', { name: 'get_run' }, /^Invalid params: params\.level: /],
      ['tools/list', { cursor: [] }, /^Invalid params: params\.cursor: .*expected string/],
      ['tools/call', { name: 7 }, /^Invalid params: params\.name: .*expected string/],
      ['resources/read', {}, /^Invalid params: params\.uri: is required \(string\)$/],
      ['resources/list', { cursor: 5 }, /^Invalid params: params\.cursor: .*expected string/],
      ['tools/call', { name: 'ask', arguments: [] }, /^Invalid params: params\.arguments: /],
    ];
    for (const [i, [method, params, message]] of cases.entries()) {
      const { status, body } = await raw(100 + i, method, params);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ id: 100 + i, error: { code: -32602 } });
      expect(body.error!.message).toMatch(message);
      expect(body.error!.message).not.toMatch(/\n|"code"|invalid_type/);
    }
    // Well-formed requests in the same session still work, raw and through the SDK.
    expect((await raw(200, 'tools/list', {})).body).toMatchObject({ id: 200, result: { tools: expect.any(Array) } });
    await client.setLoggingLevel('info');
    expect((await client.listTools()).tools).toHaveLength(6);
  });

  it('council returns the verdict as structured content', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'council', arguments: { question: 'Should we move the team to a four-day week?' } });
    expect(result.isError).toBeFalsy();
    const verdict = structured<{ runId: string; recommendation: string; confidence: number; keyInsights: string[] }>(result);
    expect(verdict.recommendation.length).toBeGreaterThan(0);
    expect(verdict.confidence).toBeGreaterThanOrEqual(0);
    expect(Array.isArray(verdict.keyInsights)).toBe(true);
  });

  it('list_specialists, get_run and the parley://runs/{id} resource read the knowledge graph', async () => {
    const client = await connect();
    const listed = structured<{ specialists: { id: string }[] }>(await client.callTool({ name: 'list_specialists', arguments: {} }));
    expect(listed.specialists.map((s) => s.id)).toEqual(['noter']);

    const out = structured<AskResult>(await client.callTool({ name: 'ask', arguments: { query: 'a question to remember [[route:direct]]' } }));
    await expect.poll(async () => (await parley.store.getRun(out.runId))?.status).toBe('completed');
    const run = structured<{ id: string; query: string; protocol: string }>(await client.callTool({ name: 'get_run', arguments: { run_id: out.runId } }));
    expect(run).toMatchObject({ id: out.runId, protocol: 'mcp' });

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`parley://runs/${out.runId}`);
    const read = await client.readResource({ uri: `parley://runs/${out.runId}` });
    const content = read.contents[0]!;
    expect('text' in content && JSON.parse(content.text).query).toContain('a question to remember');
    await expect(client.readResource({ uri: 'parley://runs/no-such-run' })).rejects.toThrow();
  });

  it('closes a session whose client went away without DELETE, keeps a connected idle one', async () => {
    const kept = await connect({ path: '/mcp-short' });
    const goneTransport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp-short`));
    const gone = new Client({ name: 'vanishing', version: '1.0.0' });
    await gone.connect(goneTransport);
    const sessionId = goneTransport.sessionId!;
    await gone.listTools();
    await goneTransport.close(); // drops its streams, sends no DELETE

    const listTools = (sid: string) =>
      fetch(`${server.url}/mcp-short`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // Each probe counts as activity, so probe less often than the idle time.
    await expect.poll(async () => (await listTools(sessionId)).status, { timeout: IDLE_MS * 30, interval: IDLE_MS * 3 }).toBe(404);
    // A connected client keeps its notification stream open, so it is never idle.
    expect((await kept.listTools()).tools).toHaveLength(6);
  });

  it('rejects a foreign Host header (DNS-rebinding protection) and an unknown session', async () => {
    const url = new URL(`${server.url}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
    expect(status).toBe(403);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });
});
