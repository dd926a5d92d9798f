/**
 * ACP over Streamable HTTP: a connection whose client went away without DELETE is closed once idle
 * (no open stream for connectionIdleMs), so its agent and sessions do not stay for the life of the
 * process; a client still listening on its stream keeps its connection however quiet it is.
 * acpRoutes on 127.0.0.1 in front of the real engine, the SDK's ClientApp over its HTTP transport.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { acpRoutes, type AcpRoutes } from '../../../../src/protocols/acp/index.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { startAcpTestParley, type AcpTestParley } from '../../../fixtures/acp/test-parley.ts';
import { recordingClient } from '../../../support/protocols/acp-client.ts';

const IDLE_MS = 200;
let acp: AcpTestParley;
let routes: AcpRoutes;
let server: TestServer;

beforeAll(async () => {
  acp = await startAcpTestParley();
  routes = acpRoutes({ engine: acp.parley.engine, connectionIdleMs: IDLE_MS });
  const app = new Hono();
  app.route('/', routes.app);
  server = await listen(app);
});
afterAll(async () => {
  await routes?.close();
  await server?.close();
  await acp?.close();
});

const post = (body: unknown, connectionId?: string) =>
  fetch(`${server.url}/acp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(connectionId ? { 'acp-connection-id': connectionId } : {}),
    },
    body: JSON.stringify(body),
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('idle ACP connections over HTTP', () => {
  it('closes a connection whose client left without DELETE, once idle: its id is then unknown', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    expect(init.status).toBe(200);
    await init.json();
    const id = init.headers.get('acp-connection-id')!;
    expect(id).toBeTruthy();
    const newSession = { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } };
    expect((await post(newSession, id)).status).toBe(202);

    // The client never opens its stream and never comes back.
    await expect
      .poll(async () => (await post({ ...newSession, id: 3 }, id)).status, {
        timeout: IDLE_MS * 30,
        interval: IDLE_MS * 3,
      })
      .toBe(404);
  });

  it('keeps a connection whose client is listening on its stream, however long it stays quiet', async () => {
    const rc = recordingClient();
    await rc.app.connectWith(createHttpStream(`${server.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      await sleep(IDLE_MS * 5);
      const response = await session.prompt('[[route:direct]] still there?');
      expect(response.stopReason).toBe('end_turn');
    });
  });
});
