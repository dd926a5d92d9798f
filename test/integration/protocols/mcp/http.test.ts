/**
 * Parley as an MCP server over Streamable HTTP on 127.0.0.1, driven by the MCP client SDK, against
 * the real engine (scripted model, Kuzu in memory, a real MCP fixture server whose write tool needs approval).
 * The cases every transport shares run per transport in transports.test.ts; these are HTTP's own or
 * need a client set up differently (no elicitation, a declining one, a second endpoint).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  NOTE_QUERY,
  progressLog,
  startMcpHttp,
  structured,
  textOf,
  type AskResult,
} from '../../../support/protocols/mcp-helpers.ts';
import { expectAdvice, expectVerdictData } from '../../../support/council-answer.ts';

const IDLE_MS = 300;
let served: Awaited<ReturnType<typeof startMcpHttp>>;
let parley: typeof served.parley;
let server: typeof served.server;

beforeAll(async () => {
  served = await startMcpHttp({ sessionIdleMs: IDLE_MS });
  ({ parley, server } = served);
});
afterAll(async () => {
  await served?.close();
});

const connect = (options?: Parameters<typeof served.connect>[0]) => served.connect(options);
const writesTo = (path: string) => served.writesTo(path);

describe('MCP server over Streamable HTTP', () => {
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
    // onApproval "wait" holds the call until the approval is answered (the default returns input_required).
    const asking = client.callTool(
      { name: 'ask', arguments: { query: NOTE_QUERY, onApproval: 'wait' } },
      { onprogress: progress.onprogress },
    );
    const [, requestId] = await progress.waitFor(/approval needed: request (\S+)/);
    const pending = parley.approvals.get(requestId!);
    expect(pending?.kind).toBe('tool');
    const callIds = pending?.kind === 'tool' ? pending.toolCalls.map((c) => c.toolCallId) : [];

    const wrong = await client.callTool({
      name: 'approve',
      arguments: { request_id: requestId, decisions: { 'not-a-call': 'accept' } },
    });
    expect(wrong.isError).toBe(true);
    expect(parley.approvals.get(requestId!)).toBeDefined();

    const approved = await client.callTool({
      name: 'approve',
      arguments: { request_id: requestId, decisions: Object.fromEntries(callIds.map((id) => [id, 'accept'])) },
    });
    expect(approved.isError).toBeFalsy();
    expect(structured<AskResult>(await asking).status).toBe('completed');
    expect(writesTo('a2a.txt')).toBe(before + 1);
  });

  it('a failed run is a tool error result with the reason', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'ask', arguments: { query: 'this will break [[fault:500]]' } });
    expect(result.isError).toBe(true);
    const out = structured<AskResult>(result);
    expect(out.status).toBe('failed');
    expect(textOf(result)).toContain(`Run ${out.runId} failed`);
  });

  it("params that do not match the request's schema get -32602 with one plain line naming the field, and the session goes on", async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const raw = async (id: number, method: string, params: unknown) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const text = await res.text();
      const data = res.headers.get('content-type')?.startsWith('text/event-stream')
        ? text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6)
        : text;
      return {
        status: res.status,
        body: JSON.parse(data) as { id: unknown; error?: { code: number; message: string } },
      };
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

  it('council returns the advice as text and the verdict as structured content', async () => {
    const client = await connect();
    const result = await client.callTool({
      name: 'council',
      arguments: { question: 'Should we move the team to a four-day week?' },
    });
    expect(result.isError).toBeFalsy();
    const verdict = structured<{ runId: string; recommendation: string; confidence: number; keyInsights: string[] }>(
      result,
    );
    expect(verdict.recommendation.length).toBeGreaterThan(0);
    expect(verdict.confidence).toBeGreaterThanOrEqual(0);
    expect(Array.isArray(verdict.keyInsights)).toBe(true);
    expectVerdictData(verdict);
    const text = textOf(result);
    expect(text).toBe((await parley.engine.get(verdict.runId)!.result).answer);
    expectAdvice(text);
  });

  it('ask in mode council answers with the advice', async () => {
    const client = await connect();
    const result = await client.callTool({
      name: 'ask',
      arguments: { query: 'Should we hire a second designer or a contractor?', mode: 'council' },
    });
    expect(result.isError).toBeFalsy();
    const { runId, status } = structured<{ runId: string; status: string }>(result);
    expect(status).toBe('completed');
    const text = textOf(result);
    expect(text).toBe((await parley.engine.get(runId)!.result).answer);
    expectAdvice(text);
  });

  it('list_specialists, get_run and the parley://runs/{id} resource read the knowledge graph', async () => {
    const client = await connect();
    const listed = structured<{ specialists: { id: string }[] }>(
      await client.callTool({ name: 'list_specialists', arguments: {} }),
    );
    expect(listed.specialists.map((s) => s.id)).toEqual(['noter']);

    const out = structured<AskResult>(
      await client.callTool({ name: 'ask', arguments: { query: 'a question to remember [[route:direct]]' } }),
    );
    await expect.poll(async () => (await parley.store.getRun(out.runId))?.status).toBe('completed');
    const run = structured<{ id: string; query: string; protocol: string }>(
      await client.callTool({ name: 'get_run', arguments: { run_id: out.runId } }),
    );
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
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // Each probe counts as activity, so probe less often than the idle time.
    await expect
      .poll(async () => (await listTools(sessionId)).status, { timeout: IDLE_MS * 30, interval: IDLE_MS * 3 })
      .toBe(404);
    // A connected client keeps its notification stream open, so it is never idle.
    expect((await kept.listTools()).tools).toHaveLength(6);
  });

  it('rejects a foreign Host header (DNS-rebinding protection) and an unknown session', async () => {
    const url = new URL(`${server.url}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host: 'attacker.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
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
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });
});
