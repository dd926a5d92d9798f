/**
 * No web page can drive a local Parley: the Host and Origin checks, CORS for listed origins, 415 for
 * non-JSON bodies and 404 for OAuth discovery, on the real server (createParley) over 127.0.0.1.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { EMPTY_MCP_CONFIG as EMPTY_MCP } from '../../support/server.ts';

const open: Parley[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function start(env: Record<string, string> = {}) {
  const lines: string[] = [];
  const config = loadConfig({ PARLEY_PORT: '0', PARLEY_DATA_DIR: ':memory:', PARLEY_MCP_CONFIG: EMPTY_MCP, ...env });
  const parley = await createParley(config, {
    logger: createLogger('info', (l) => lines.push(l)),
    telemetry: false,
    ingestAtStart: false,
  });
  open.push(parley);
  const { port } = await parley.listen();
  return { parley, port, url: `http://127.0.0.1:${port}`, lines };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request with any Host header (fetch does not let a caller set Host). */
function request(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const acpInitialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
});

function expectForbidden(answer: Answer) {
  expect(answer.status).toBe(403);
  expect(JSON.parse(answer.body)).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
}

/** Opens a WebSocket to /acp; resolves with 'open' or the HTTP status that refused it. */
function upgrade(port: number, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/acp`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.on('error', () => undefined);
  });
}

/** A pending write approval, once the run store has committed it (only then is it listed and answerable). */
async function askWrite(parley: Parley) {
  const issued = parley.approvals.request({
    kind: 'tool',
    runId: 'run-origin',
    toolCalls: [
      {
        toolCallId: 'call-1',
        tool: 'fs/write_file',
        args: { path: 'a.txt', content: 'x' },
        reason: 'annotations: destructiveHint',
        inputSchema: { type: 'object' },
      },
    ],
  });
  await issued.stored;
  return issued;
}

describe('Host check (DNS rebinding)', () => {
  it('bound to 127.0.0.1: a foreign Host gets 403 on every route before anything runs; loopback names on any port pass', async () => {
    const { parley, port } = await start();
    const { request: pending } = await askWrite(parley);
    const foreign = { host: 'attacker.example:8787' };
    expectForbidden(await request(port, { path: '/health', headers: foreign }));
    expectForbidden(await request(port, { path: '/api/approvals', headers: foreign }));
    const approve = JSON.stringify({ request_id: pending.id, decisions: { 'call-1': 'accept' } });
    expectForbidden(
      await request(port, {
        method: 'POST',
        path: '/api/approve',
        headers: { ...foreign, ...JSON_TYPE },
        body: approve,
      }),
    );
    expectForbidden(
      await request(port, { method: 'POST', path: '/acp', headers: { ...foreign, ...JSON_TYPE }, body: acpInitialize }),
    );
    expectForbidden(
      await request(port, {
        method: 'POST',
        path: '/stream',
        headers: { ...foreign, ...JSON_TYPE },
        body: JSON.stringify({ query: 'hi' }),
      }),
    );
    expect(parley.approvals.get(pending.id)).toBeDefined(); // nothing was approved
    expect(parley.engine.retainedRuns).toBe(0);
    for (const host of ['localhost:1', '127.0.0.1', `[::1]:${port}`, 'LOCALHOST:9']) {
      expect((await request(port, { path: '/health', headers: { host } })).status, host).toBe(200);
    }
    // The WebSocket upgrade is checked the same way.
    expect(await upgrade(port, { host: 'attacker.example' })).toBe(403);
    expect(await upgrade(port, {})).toBe('open');
  });

  it('PARLEY_ALLOWED_HOSTS adds names', async () => {
    const { port } = await start({ PARLEY_ALLOWED_HOSTS: 'parley.internal' });
    expect((await request(port, { path: '/health', headers: { host: 'parley.internal:443' } })).status).toBe(200);
    expectForbidden(await request(port, { path: '/health', headers: { host: 'other.internal' } }));
  });

  it('bound to 0.0.0.0: any Host unless PARLEY_ALLOWED_HOSTS is set, and a loud warning without keys', async () => {
    const open = await start({ PARLEY_HOST: '0.0.0.0' });
    expect((await request(open.port, { path: '/health', headers: { host: 'parley.example.com' } })).status).toBe(200);
    expect(
      open.lines.filter((l) => l.includes('WARN') && l.includes('0.0.0.0') && l.includes('PARLEY_API_KEYS')),
    ).toHaveLength(1);

    const keyed = await start({
      PARLEY_HOST: '0.0.0.0',
      PARLEY_API_KEYS: 'k',
      PARLEY_ALLOWED_HOSTS: 'parley.example.com',
    });
    expect(keyed.lines.some((l) => l.includes('auth is OFF'))).toBe(false);
    expect((await request(keyed.port, { path: '/health', headers: { host: 'parley.example.com' } })).status).toBe(200);
    expect((await request(keyed.port, { path: '/health', headers: { host: 'localhost' } })).status).toBe(200);
    expectForbidden(await request(keyed.port, { path: '/health', headers: { host: 'rebound.example' } }));
  });

  it("accepts the replica's own address (PARLEY_REPLICA_URL) beside the listed hosts, and never narrows an empty list", async () => {
    const listed = await start({
      PARLEY_HOST: '0.0.0.0',
      PARLEY_API_KEYS: 'k',
      PARLEY_ALLOWED_HOSTS: 'parley.example.com',
      PARLEY_REPLICA_URL: 'http://10.1.2.3:8787',
    });
    expect((await request(listed.port, { path: '/health', headers: { host: '10.1.2.3:8787' } })).status).toBe(200);
    expect((await request(listed.port, { path: '/health', headers: { host: 'parley.example.com' } })).status).toBe(200);
    expectForbidden(await request(listed.port, { path: '/health', headers: { host: 'rebound.example' } }));

    const open = await start({
      PARLEY_HOST: '0.0.0.0',
      PARLEY_API_KEYS: 'k',
      PARLEY_REPLICA_URL: 'http://10.1.2.3:8787',
    });
    expect((await request(open.port, { path: '/health', headers: { host: 'lb.example.com' } })).status).toBe(200);
  });
});

describe('Origin check and CORS', () => {
  it("a foreign Origin gets 403 (reads, approvals, runs, the WebSocket); the server's own origin passes", async () => {
    const { parley, port } = await start();
    const { request: pending } = await askWrite(parley);
    const evil = { origin: 'https://evil.example' };
    expectForbidden(await request(port, { path: '/api/approvals', headers: evil }));
    const approve = JSON.stringify({ request_id: pending.id, decisions: { 'call-1': 'accept' } });
    expectForbidden(
      await request(port, { method: 'POST', path: '/api/approve', headers: { ...evil, ...JSON_TYPE }, body: approve }),
    );
    expectForbidden(
      await request(port, {
        method: 'OPTIONS',
        path: '/api/approve',
        headers: { ...evil, 'access-control-request-method': 'POST' },
      }),
    );
    // Another local port is another origin too (a dev server, a local page).
    expectForbidden(await request(port, { path: '/api/approvals', headers: { origin: 'http://localhost:3000' } }));
    expectForbidden(await request(port, { path: '/api/approvals', headers: { origin: 'null' } }));
    expect(await upgrade(port, evil)).toBe(403);
    expect(parley.approvals.get(pending.id)).toBeDefined();

    const own = await request(port, { path: '/api/approvals', headers: { origin: `http://127.0.0.1:${port}` } });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    expect(await upgrade(port, { origin: `http://127.0.0.1:${port}` })).toBe('open');
    expect(await upgrade(port, { origin: `http://localhost:${port}`, host: `localhost:${port}` })).toBe('open');
  });

  it("a listed origin gets CORS: preflight with the protocols' headers, and exposed response headers", async () => {
    const frontend = 'http://localhost:5173';
    const { port } = await start({
      PARLEY_ALLOWED_ORIGINS: `${frontend},https://app.example.com`,
      PARLEY_API_KEYS: 'k',
    });
    const preflight = await request(port, {
      method: 'OPTIONS',
      path: '/mcp',
      headers: {
        origin: frontend,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(frontend);
    const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase();
    for (const h of [
      'authorization',
      'content-type',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'acp-connection-id',
      'a2a-version',
    ])
      expect(allowed).toContain(h);
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');

    const init = await request(port, {
      method: 'POST',
      path: '/mcp',
      headers: {
        origin: frontend,
        authorization: 'Bearer k',
        ...JSON_TYPE,
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers['access-control-allow-origin']).toBe(frontend);
    expect(String(init.headers['access-control-expose-headers']).toLowerCase()).toContain('mcp-session-id');
    expect(init.headers['mcp-session-id']).toBeTruthy();
    expect(await upgrade(port, { origin: 'https://app.example.com', authorization: 'Bearer k' })).toBe('open');
    expectForbidden(
      await request(port, {
        path: '/api/approvals',
        headers: { origin: 'https://app.example.com.evil.example', authorization: 'Bearer k' },
      }),
    );
  });

  it('refuses a malformed origin setting at start, naming it', () => {
    expect(() => loadConfig({ PARLEY_ALLOWED_ORIGINS: '*' })).toThrow(/PARLEY_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ PARLEY_ALLOWED_HOSTS: 'https://x.example/' })).toThrow(/PARLEY_ALLOWED_HOSTS/);
  });
});

describe('JSON endpoints take JSON only', () => {
  it('a text/plain "simple request" to /api/approve is 415 and approves nothing; application/json; charset=utf-8 works', async () => {
    const { parley, url } = await start();
    const { request: pending, outcome } = await askWrite(parley);
    const body = JSON.stringify({ request_id: pending.id, decisions: { 'call-1': 'accept' } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await fetch(`${url}/api/approve`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
    }
    expect(parley.approvals.get(pending.id)).toBeDefined();
    const ok = await fetch(`${url}/api/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body,
    });
    expect(ok.status).toBe(200);
    expect(await outcome).toMatchObject({
      requestId: pending.id,
      resolvedBy: 'human',
      decision: { kind: 'tool', decisions: { 'call-1': { type: 'accept' } } },
    });
  });

  it("415 on the other JSON endpoints too, in each one's shape (JSON-RPC on /mcp, /acp; A2A's own -32005 on /a2a)", async () => {
    const { url, parley } = await start();
    for (const path of ['/stream', '/ag-ui', '/v1/chat/completions']) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{"query":"hi"}',
      });
      expect(res.status, path).toBe(415);
    }
    const post = (path: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
        body: acpInitialize,
      });
    for (const path of ['/mcp', '/acp']) {
      const res = await post(path);
      expect(res.status, path).toBe(415);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    // A2A 1.0 names this error itself: ContentTypeNotSupportedError, -32005, on JSON-RPC's HTTP 200.
    const a2a = await post('/a2a');
    expect(a2a.status).toBe(200);
    expect(await a2a.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32005 } });
    expect(parley.engine.retainedRuns).toBe(0);
  });
});

describe('OAuth discovery', () => {
  it('/.well-known/oauth-* answer 404 with auth on, and the MCP client SDK connects with its bearer header', async () => {
    const { url } = await start({ PARLEY_API_KEYS: 'mcp-key' });
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration/mcp',
      '/mcp/.well-known/openid-configuration',
    ]) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    expect((await fetch(`${url}/api/approvals`)).status).toBe(401);
    const client = new Client({ name: 'bearer', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer mcp-key' } },
      }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
