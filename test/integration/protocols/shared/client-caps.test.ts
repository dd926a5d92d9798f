/**
 * MCP sessions and ACP connections are capped per caller and in total, on the real server over
 * 127.0.0.1: over a cap the least recently used idle one is closed; with none idle the newcomer gets
 * the protocol's "try later" (429 per caller / 503 in total, Retry-After, a JSON-RPC error).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { methods } from '@agentclientprotocol/sdk';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { loadConfig } from '../../../../src/config.ts';
import { silentLogger } from '../../../../src/log.ts';
import { createParley, type Parley } from '../../../../src/server.ts';
import { recordingClient } from '../../../support/protocols/acp-client.ts';

const EMPTY_MCP = fileURLToPath(new URL('../../../fixtures/mcp-empty.json', import.meta.url));
const opened: Parley[] = [];
const streams: ReadableStreamDefaultReader[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) await s.cancel().catch(() => undefined);
  await Promise.all(opened.splice(0).map((p) => p.close()));
});

async function start(env: Record<string, string>) {
  const config = loadConfig({
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP,
    PARLEY_API_KEYS: 'k1,k2',
    PARLEY_SHUTDOWN_TIMEOUT_MS: '200',
    ...env,
  });
  const parley = await createParley(config, { logger: silentLogger, telemetry: false, ingestAtStart: false });
  opened.push(parley);
  return { parley, url: (await parley.listen()).url };
}

const ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Holds a GET stream open on a session or connection, which makes it busy (not idle). */
async function listen(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
  expect(res.status).toBe(200);
  streams.push(res.body!.getReader());
}

describe('MCP sessions', () => {
  const initialize = (url: string, key: string) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...ACCEPT, ...bearer(key) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cap', version: '1' } },
      }),
    });
  const listTools = (url: string, key: string, session: string) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...ACCEPT, ...bearer(key), 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });

  it('per caller: the least recently used idle session is closed; with none idle the MCP client SDK gets 429', async () => {
    const { url } = await start({ PARLEY_MCP_MAX_SESSIONS_PER_CALLER: '2' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await initialize(url, 'k1');
      expect(res.status).toBe(200);
      await res.text();
      ids.push(res.headers.get('mcp-session-id')!);
    }
    // The first (least recently used, idle) is gone; the other two serve.
    expect((await listTools(url, 'k1', ids[0]!)).status).toBe(404);
    expect((await listTools(url, 'k1', ids[2]!)).status).toBe(200);
    expect((await listTools(url, 'k1', ids[1]!)).status).toBe(200);
    // Both busy now (a listening stream each): a third cannot make room.
    for (const id of ids.slice(1))
      await listen(`${url}/mcp`, { ...bearer('k1'), 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    const refused = await initialize(url, 'k1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: expect.stringMatching(/Too many open MCP sessions/) },
    });
    const client = new Client({ name: 'sdk', version: '1.0.0' });
    await expect(
      client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer('k1') } }),
      ),
    ).rejects.toThrow(/429|Too many/);
    // Another caller is not affected.
    const other = new Client({ name: 'sdk', version: '1.0.0' });
    await other.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer('k2') } }),
    );
    expect((await other.listTools()).tools.length).toBeGreaterThan(0);
    await other.close();
  });

  it('in total: 503 when every session is busy', async () => {
    const { url } = await start({ PARLEY_MCP_MAX_SESSIONS: '2', PARLEY_MCP_MAX_SESSIONS_PER_CALLER: '2' });
    for (const key of ['k1', 'k2']) {
      const res = await initialize(url, key);
      await res.text();
      await listen(`${url}/mcp`, {
        ...bearer(key),
        'mcp-session-id': res.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      });
    }
    const refused = await initialize(url, 'k2');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } });
  });

  it('100 initialize calls from one caller leave only the cap open', async () => {
    const { url } = await start({ PARLEY_MCP_MAX_SESSIONS_PER_CALLER: '5' });
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 1) {
      const res = await initialize(url, 'k1');
      expect(res.status).toBe(200);
      await res.text();
      ids.push(res.headers.get('mcp-session-id')!);
    }
    const alive = (await Promise.all(ids.map(async (id) => (await listTools(url, 'k1', id)).status))).filter(
      (s) => s === 200,
    );
    expect(alive).toHaveLength(5);
  });
});

describe('ACP connections', () => {
  const initialize = (url: string, key: string) =>
    fetch(`${url}/acp`, {
      method: 'POST',
      headers: { ...ACCEPT, ...bearer(key) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    });
  const newSession = (url: string, key: string, connection: string) =>
    fetch(`${url}/acp`, {
      method: 'POST',
      headers: { ...ACCEPT, ...bearer(key), 'acp-connection-id': connection },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }),
    });

  it('per caller over HTTP and WebSocket: the idle HTTP connection goes first, then 429 for HTTP and for the upgrade', async () => {
    const { url } = await start({ PARLEY_ACP_MAX_CONNECTIONS_PER_CALLER: '2' });
    const first = await initialize(url, 'k1');
    await first.text();
    const idle = first.headers.get('acp-connection-id')!;
    // A WebSocket connection through the ACP client SDK: busy for as long as it is open.
    const rc = recordingClient();
    const wsDone = rc.app.connectWith(
      createWebSocketStream(`${url.replace(/^http/, 'ws')}/acp`, {
        WebSocket: WebSocket as never,
        headers: bearer('k1'),
      }),
      async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        const second = await initialize(url, 'k1');
        expect(second.status).toBe(200);
        await second.text();
        // The idle HTTP connection made room.
        expect((await newSession(url, 'k1', idle)).status).toBe(404);
        const busy = second.headers.get('acp-connection-id')!;
        await listen(`${url}/acp`, { ...bearer('k1'), 'acp-connection-id': busy });
        const refused = await initialize(url, 'k1');
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await refused.json()).toMatchObject({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32000, message: expect.stringMatching(/Too many open ACP connections/) },
        });
        const upgrade = await new Promise<number>((resolve) => {
          const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/acp`, { headers: bearer('k1') });
          ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          ws.on('open', () => resolve(101));
          ws.on('error', () => undefined);
        });
        expect(upgrade).toBe(429);
        // Another caller still connects.
        const other = await initialize(url, 'k2');
        expect(other.status).toBe(200);
        await other.text();
      },
    );
    await wsDone;
  });

  it('in total: 503 when every connection is busy', async () => {
    const { url } = await start({ PARLEY_ACP_MAX_CONNECTIONS: '1' });
    const first = await initialize(url, 'k1');
    await first.text();
    await listen(`${url}/acp`, { ...bearer('k1'), 'acp-connection-id': first.headers.get('acp-connection-id')! });
    const refused = await initialize(url, 'k2');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } });
  });
});
