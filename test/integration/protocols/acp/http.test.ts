/**
 * ACP over Streamable HTTP: acpRoutes mounted in Parley's HTTP app (bearer auth, body limit, as the
 * composition root mounts it) on 127.0.0.1 in front of the real engine, driven by the SDK's ClientApp
 * over its own HTTP client transport (createHttpStream).
 */
import { request } from 'node:http';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods, type ClientContext } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { acpRoutes, type AcpRoutes } from '../../../../src/protocols/acp/index.ts';
import { createHttpApp } from '../../../../src/http/app.ts';
import { callerIdOf, callerOf } from '../../../../src/http/auth.ts';
import { silentLogger } from '../../../../src/log.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { scribePrompt, startAcpTestParley, type AcpTestParley } from '../../../fixtures/acp/test-parley.ts';
import {
  messageText,
  recordingClient,
  select,
  statuses,
  updatesOf,
  type RecordingClient,
} from '../../../support/protocols/acp-client.ts';

let acp: AcpTestParley;
let routes: AcpRoutes;
let server: TestServer;
const KEY = 'acp-http-key';
const auth = { authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  acp = await startAcpTestParley();
  routes = acpRoutes({ engine: acp.parley.engine, callerOf });
  const app = createHttpApp({
    version: 'test',
    apiKeys: [KEY],
    bodyLimitBytes: 1024 * 1024,
    logger: silentLogger,
    routes: [{ path: '/', app: routes.app }],
    readiness: [],
  });
  // test/support's listen is typed for a plain Hono; the app is one with Parley's auth env.
  server = await listen(app as unknown as Hono);
});
afterAll(async () => {
  await routes?.close();
  await server?.close();
  await acp?.close();
});

async function overHttp<T>(
  op: (ctx: ClientContext, rc: RecordingClient) => Promise<T>,
  headers: Record<string, string> = auth,
): Promise<T> {
  const rc = recordingClient();
  return rc.app.connectWith(createHttpStream(`${server.url}/acp`, { headers }), async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return op(ctx, rc);
  });
}

/** Status of a WebSocket upgrade request (fetch refuses to send one). */
function upgradeStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        ...auth,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}

const runIdOf = (meta: unknown) => (meta as { parley: { runId: string } }).parley.runId;

describe('ACP over Streamable HTTP (/acp)', () => {
  it('a prompt runs to completion with plan updates; the run is accounted to the API key that connected', async () => {
    await overHttp(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(
        '[[route:plan]] [[steps:2]] Compare two caching strategies and summarize them',
      );
      expect(response.stopReason).toBe('end_turn');
      const plans = updatesOf(rc, session.sessionId, 'plan');
      expect(statuses(plans[0]!.entries)).toEqual(['pending', 'pending']);
      expect(statuses(plans.at(-1)!.entries)).toEqual(['completed', 'completed']);
      const result = await acp.parley.engine.get(runIdOf(response._meta))!.result;
      expect(messageText(rc, session.sessionId)).toBe(result.answer);
      const run = await acp.parley.store.getRun(result.runId);
      expect(run).toMatchObject({ protocol: 'acp', callerId: callerIdOf(KEY) });
    });
  });

  it('without the API key the connection is refused (401) and nothing runs', async () => {
    const runs = acp.parley.engine.retainedRuns;
    await expect(overHttp(async () => undefined, {})).rejects.toBeDefined();
    const res = await fetch(`${server.url}/acp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }),
    });
    expect(res.status).toBe(401);
    expect(acp.parley.engine.retainedRuns).toBe(runs);
  });

  it('a permission round-trip over HTTP', async () => {
    await overHttp(async (ctx, rc) => {
      rc.answer = () => select('allow_once');
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(scribePrompt('write_note', { path: 'http-note', content: 'hello' }));
      expect(response.stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(1);
      expect(acp.fixture.state.writes.filter((w) => w.path === 'http-note')).toHaveLength(1);
    });
  });

  it('session/cancel over HTTP cancels the run', async () => {
    await overHttp(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const before = acp.parley.scripted.requests.length;
      const pending = session.prompt('[[route:plan]] [[fault:hang]] this never answers');
      await expect.poll(() => acp.parley.scripted.requests.length).toBeGreaterThan(before);
      await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
      const response = await pending;
      expect(response.stopReason).toBe('cancelled');
      expect((await acp.parley.engine.get(runIdOf(response._meta))!.result).status).toBe('cancelled');
    });
  });

  it('bad requests: JSON-RPC errors inside a connection, HTTP errors from the transport, no crash', async () => {
    await overHttp(async (ctx) => {
      await expect(ctx.request('session/teleport', {})).rejects.toMatchObject({ code: -32601 });
      await expect(ctx.request('session/prompt', { sessionId: 'no-such-session' })).rejects.toMatchObject({
        code: -32602,
      });
      await expect(
        ctx.request(methods.agent.session.setMode, { sessionId: 'no-such-session', modeId: 'auto' }),
      ).rejects.toMatchObject({ code: -32002 });
    });
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/acp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body,
      });
    expect((await post('{not json')).status).toBe(400);
    expect((await post('[]')).status).toBe(400);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: {} }))).status).toBe(400);
    expect(
      (
        await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: {} }), {
          'acp-connection-id': 'nope',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await fetch(`${server.url}/acp`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', ...auth },
          body: 'x',
        })
      ).status,
    ).toBe(415);
    expect(await upgradeStatus(`${server.url}/acp`)).toBe(426);
    // Still serving.
    await overHttp(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      expect((await session.prompt('[[route:direct]] hello')).stopReason).toBe('end_turn');
    });
  });
});
