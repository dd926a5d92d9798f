/**
 * One check for every JSON body and /acp WebSocket message, on the real server over 127.0.0.1: not UTF-8
 * JSON (BOM, invalid bytes, lone surrogates) or nested too deep gets 400 (a JSON-RPC error on the
 * same connection for ACP and MCP) and starts nothing; a message over the body limit closes the socket.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { EMPTY_MCP_CONFIG as EMPTY_MCP } from '../../support/server.ts';

const LIMIT = 64 * 1024;
let parley: Parley;
let url: string;

beforeAll(async () => {
  const config = loadConfig({
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP,
    PARLEY_BODY_LIMIT_BYTES: String(LIMIT),
  });
  parley = await createParley(config, { logger: silentLogger, telemetry: false, ingestAtStart: false });
  url = (await parley.listen()).url;
});
afterAll(async () => {
  await parley?.close();
});

const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Bodies that are JSON-typed but not acceptable UTF-8 JSON text. */
const BAD_TEXT: [string, (json: string) => Uint8Array][] = [
  ['a byte order mark', (json) => concat(Uint8Array.of(0xef, 0xbb, 0xbf), utf8(json))],
  ['invalid UTF-8 bytes', (json) => concat(utf8(json.slice(0, -2)), Uint8Array.of(0xff, 0xfe), utf8(json.slice(-2)))],
  ['a lone surrogate', (json) => utf8(json.replace(/"hello/, '"\\ud800hello'))],
];

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });

describe('the JSON endpoints', () => {
  it('refuse a BOM, invalid UTF-8 and lone surrogates with 400 and start no run', async () => {
    const before = parley.engine.retainedRuns;
    const bodies: Record<string, string> = {
      '/stream': JSON.stringify({ query: 'hello [[route:direct]]' }),
      '/v1/chat/completions': JSON.stringify({
        model: 'parley',
        messages: [{ role: 'user', content: 'hello [[route:direct]]' }],
      }),
      '/ag-ui': JSON.stringify({
        threadId: 't',
        runId: 'r',
        messages: [{ id: 'm', role: 'user', content: 'hello [[route:direct]]' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
      '/api/approve': JSON.stringify({ request_id: 'x', decisions: { c: 'accept' }, feedback: 'hello' }),
    };
    for (const [path, json] of Object.entries(bodies)) {
      for (const [what, mangle] of BAD_TEXT) {
        const res = await post(path, mangle(json));
        expect(res.status, `${path} with ${what}`).toBe(400);
        expect(await res.json()).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
      }
      const deep = await post(path, json.replace(/^\{/, `{"deep":${deepArray(10_000)},`));
      expect(deep.status, `${path} nested 10,000 deep`).toBe(400);
      expect(((await deep.json()) as { error: { message: string } }).error.message).toMatch(/nested deeper than 64/);
    }
    const notObject = await post('/stream', '["hello"]');
    expect(notObject.status).toBe(400);
    expect(parley.engine.retainedRuns).toBe(before);
    // A well-formed pair (an emoji escaped as two surrogates) is fine.
    const ok = await post(
      '/stream',
      JSON.stringify({ query: 'hello \ud83d\ude00 [[route:direct]]' }).replace('\ud83d\ude00', '\\ud83d\\ude00'),
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(ok.status).toBe(200);
    await ok.text();
  });
});

/** An ACP connection over raw HTTP: initialize, then its GET stream read into `frames`. */
async function acpConnection() {
  const init = await post(
    '/acp',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  );
  expect(init.status).toBe(200);
  await init.text();
  const id = init.headers.get('acp-connection-id')!;
  const stream = await fetch(`${url}/acp`, { headers: { accept: 'text/event-stream', 'acp-connection-id': id } });
  const frames: string[] = [];
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) frames.push(decoder.decode(r.value));
  })().catch(() => undefined);
  return { id, frames, close: () => reader.cancel().catch(() => undefined) };
}

describe('ACP over HTTP', () => {
  it('a 10,000-deep id or params gets a JSON-RPC error and the connection keeps serving', async () => {
    const acp = await acpConnection();
    for (const body of [
      `{"jsonrpc":"2.0","id":${deepObject(10_000)},"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
      `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[],"_meta":${deepObject(10_000)}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"session/new","params":${deepArray(10_000)}}`,
    ]) {
      const res = await post('/acp', body, { 'acp-connection-id': acp.id });
      expect(res.status).toBe(400);
      const reply = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      expect(reply).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32600, message: expect.stringMatching(/nested deeper/) },
      });
      expect(reply.id).toBe(body.includes('"id":2') ? 2 : body.includes('"id":3') ? 3 : null);
    }
    const next = await post(
      '/acp',
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }),
      { 'acp-connection-id': acp.id },
    );
    expect(next.status).toBe(202);
    await expect.poll(() => acp.frames.join('').includes('"id":4,"result":{"sessionId"')).toBe(true);
    await acp.close();
  });
});

describe('MCP', () => {
  it("a 10,000-deep request gets a JSON-RPC error with its id, and the client SDK's session keeps working", async () => {
    const client = new Client({ name: 'deep', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
    await client.connect(transport);
    const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
    const res = await post(
      '/mcp',
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"query":"x","deep":${deepObject(10_000)}}}}`,
      headers,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
    const surrogate = await post(
      '/mcp',
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask","arguments":{"query":"\\udc00"}}}',
      headers,
    );
    expect(await surrogate.json()).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32700 } });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

/** A raw WebSocket on /acp with its received messages. */
async function acpSocket() {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/acp`);
  const messages: { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] = [];
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as (typeof messages)[number]));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, closed };
}

describe('ACP over WebSocket', () => {
  it('a deep or mangled message gets a JSON-RPC error on the same socket, which keeps serving', async () => {
    const { ws, messages } = await acpSocket();
    ws.send(
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"_meta":${deepObject(10_000)}}}`,
    );
    ws.send(`{"jsonrpc":"2.0","id":${deepArray(10_000)},"method":"initialize","params":{}}`);
    ws.send(
      '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"_meta":{"x":"\\ud800"}}}',
    );
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    );
    await expect.poll(() => messages.length).toBe(4);
    expect(messages[0]).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringMatching(/nested deeper/) },
    });
    expect(messages[1]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(messages[2]).toMatchObject({ id: 2, error: { code: -32700, message: expect.stringMatching(/surrogate/) } });
    expect(messages[3]).toMatchObject({ id: 3, result: { protocolVersion: 1 } });
    ws.close();
  });

  it('a message over PARLEY_BODY_LIMIT_BYTES closes the socket with 1009', async () => {
    const { ws, closed } = await acpSocket();
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {}, _meta: { pad: 'x'.repeat(LIMIT) } },
      }),
    );
    expect(await closed).toBe(1009);
    // The server still serves.
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});

describe('JSON-RPC envelopes', () => {
  // An object id made the ACP SDK answer 500 (found by the fuzz test): every JSON-RPC endpoint holds
  // a message to the envelope rules before its SDK sees it.
  const bad: [string, Record<string, unknown>][] = [
    [
      'an object id',
      { jsonrpc: '2.0', id: {}, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
    ],
    ['a number method', { jsonrpc: '2.0', id: 5, method: 5, params: {} }],
    ['string params', { jsonrpc: '2.0', id: 6, method: 'initialize', params: 'x' }],
  ];

  it('get -32600 Invalid Request on /acp, /mcp and /a2a, with the id when it is a valid one', async () => {
    const runsBefore = parley.engine.retainedRuns;
    for (const path of ['/acp', '/mcp', '/a2a']) {
      for (const [why, message] of bad) {
        const res = await post(path, JSON.stringify(message));
        expect(res.status, `${path}: ${why}`).toBe(400);
        const body = (await res.json()) as { id: unknown; error: { code: number; message: string } };
        expect(body.error.code, `${path}: ${why}`).toBe(-32600);
        expect(body.id).toBe(typeof message.id === 'number' ? message.id : null);
        expect(body.error.message).toMatch(/^Invalid Request: /);
      }
    }
    expect(parley.engine.retainedRuns).toBe(runsBefore);
  });

  it('get -32600 on the /acp WebSocket, which keeps serving', async () => {
    const { ws, messages } = await acpSocket();
    for (const [, message] of bad) ws.send(JSON.stringify(message));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    );
    await expect.poll(() => messages.length).toBe(bad.length + 1);
    expect(messages.slice(0, bad.length).map((m) => m.error?.code)).toEqual(bad.map(() => -32600));
    expect(messages[bad.length]).toMatchObject({ id: 7, result: { protocolVersion: 1 } });
    ws.close();
  });
});

describe('empty bodies on the JSON-RPC endpoints', () => {
  // The MCP SDK's Hono helper parsed any request typed JSON, body or not, and answered "Invalid JSON"
  // in plain text (found by the fuzz test with OPTIONS /mcp).
  it('an empty POST is a -32700 parse error; a body-less OPTIONS/GET/DELETE typed JSON is answered as without the type', async () => {
    for (const path of ['/mcp', '/acp', '/a2a']) {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the body is empty.' },
      });
    }
    for (const method of ['OPTIONS', 'GET', 'DELETE']) {
      const res = await fetch(`${url}/mcp`, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'unknown',
        },
      });
      if (method === 'OPTIONS') {
        // Issue 44 §1: a plain OPTIONS (not a CORS preflight) is 204 with Allow, its body never read.
        expect(res.status, method).toBe(204);
        expect(res.headers.get('allow'), method).toMatch(/\bPOST\b/);
        continue;
      }
      expect(res.status, method).toBe(404);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
    }
  });

  // A body on these methods reached the MCP helper, which answered "Invalid JSON" in plain text (found by
  // the fuzz test: OPTIONS /mcp typed JSON with the body "\u0000").
  it('a body on OPTIONS/GET typed JSON, which nothing reads, is answered as without the type', async () => {
    for (const [method, body] of [
      ['OPTIONS', '\u0000'],
      ['GET', 'not json'],
      ['OPTIONS', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'],
    ] as const) {
      const { status, type, text } = await rawRequest(method, '/mcp', body, {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'unknown',
      });
      if (method === 'OPTIONS') {
        // Issue 44 §1: a plain OPTIONS is 204 with Allow, whatever body it carries (never read).
        expect(status, `${method} ${body}`).toBe(204);
        expect(text, `${method} ${body}`).toBe('');
        continue;
      }
      expect(status, `${method} ${body}`).toBe(404);
      expect(type).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
    }
  });
});

/** A request with a body whatever the method (fetch refuses a GET with one). */
function rawRequest(method: string, path: string, body: string, headers: Record<string, string>) {
  const target = new URL(`${url}${path}`);
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
