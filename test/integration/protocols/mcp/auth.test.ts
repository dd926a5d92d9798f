/**
 * The MCP endpoint mounted as the composition root mounts it: under /mcp in the real HTTP app
 * (API-key auth, body limit), runs accounted to the caller's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createHttpApp } from '../../../../src/http/app.ts';
import { callerIdOf, callerOf } from '../../../../src/http/auth.ts';
import { silentLogger } from '../../../../src/log.ts';
import { mcpRoutes } from '../../../../src/protocols/mcp/index.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { NOTER, postModern, structured, type AskResult } from '../../../support/protocols/mcp-helpers.ts';

const KEY = 'mcp-key';
const OTHER = 'other-key';
let parley: TestParley;
let server: TestServer;

beforeAll(async () => {
  parley = await createTestParley({ roster: false, specialists: [NOTER] });
  const mcp = mcpRoutes({
    engine: parley.engine,
    approvals: parley.approvals,
    store: parley.store,
    config: parley.config,
    logger: silentLogger,
    callerOf,
  });
  const app = createHttpApp({
    version: 'test',
    apiKeys: [KEY, OTHER],
    bodyLimitBytes: 64 * 1024,
    logger: silentLogger,
    readiness: [],
    routes: [{ path: '/mcp', app: mcp }],
  });
  server = await listen(app as unknown as Hono);
});
afterAll(async () => {
  await server?.close();
  await parley?.close();
});

describe('MCP behind API-key auth', () => {
  it('refuses a client without a key', async () => {
    const client = new Client({ name: 'no-key', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))).rejects.toThrow();
  });

  it('serves a client with a key and accounts the run to that key', async () => {
    const client = new Client({ name: 'with-key', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      }),
    );
    const out = structured<AskResult>(
      await client.callTool({ name: 'ask', arguments: { query: 'hello [[route:direct]]' } }),
    );
    expect(out.status).toBe('completed');
    await expect.poll(async () => (await parley.store.getRun(out.runId))?.callerId).toBe(callerIdOf(KEY));
    await client.close();
  });

  it("2026-07-28: a round naming another key's run is refused like an unknown one; its owner gets the result", async () => {
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const ask = { name: 'ask', arguments: { query: 'hello [[route:direct]]' } };
    const asked = await postModern(server.url, 'tools/call', ask, undefined, as(KEY));
    const runId = (asked.body.result?.structuredContent as { runId: string }).runId;
    const state = Buffer.from(JSON.stringify({ v: 1, runId })).toString('base64url');
    const round = { ...ask, inputResponses: {}, requestState: state };
    const foreign = await postModern(server.url, 'tools/call', round, undefined, as(OTHER));
    expect(foreign.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    await expect.poll(async () => (await parley.store.getRun(runId))?.status).toBe('completed');
    const own = await postModern(server.url, 'tools/call', round, undefined, as(KEY));
    expect(own.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { runId, status: 'completed' },
    });
    // Without a key, a 2026-07-28 request is refused before MCP like any other.
    expect((await postModern(server.url, 'tools/list')).status).toBe(401);
  });
});
