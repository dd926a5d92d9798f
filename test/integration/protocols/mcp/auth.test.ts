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
import { startFixtureHttpServer, type FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import { NOTE_QUERY, NOTER, postModern, structured, type AskResult } from '../../../support/protocols/mcp-helpers.ts';

const KEY = 'mcp-key';
const OTHER = 'other-key';
let parley: TestParley;
let server: TestServer;
let fixture: FixtureHttpServer;

beforeAll(async () => {
  // The fixture MCP server is the noter's tool host: its write asks for approval (a 2026-07-28 round).
  fixture = await startFixtureHttpServer();
  parley = await createTestParley({ roster: false, specialists: [NOTER], mcpServers: { fx: { url: fixture.mcpUrl } } });
  const mcp = mcpRoutes({
    engine: parley.engine,
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
  await fixture?.close();
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
    const ask = { name: 'ask', arguments: { query: NOTE_QUERY } };
    // The owner's genuine round: signed for KEY (requestState is bound to the caller it was minted for).
    const asked = await postModern(server.url, 'tools/call', ask, undefined, as(KEY));
    const round = asked.body.result as unknown as { inputRequests: Record<string, unknown>; requestState: string };
    const [requestId] = Object.keys(round.inputRequests);
    const pending = parley.approvals.get(requestId!);
    const toolCallId = pending?.kind === 'tool' ? pending.toolCalls[0]!.toolCallId : '';
    const answer = {
      ...ask,
      inputResponses: { [requestId!]: { action: 'accept', content: { [toolCallId]: 'deny' } } },
      requestState: round.requestState,
    };
    const foreign = await postModern(server.url, 'tools/call', answer, undefined, as(OTHER));
    expect(foreign.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    // Nothing was decided by the other key: the approval still waits.
    expect(parley.approvals.listPending().map((r) => r.id)).toContain(requestId);
    const own = await postModern(server.url, 'tools/call', answer, undefined, as(KEY));
    expect(own.body.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'completed' } });
    // Without a key, a 2026-07-28 request is refused before MCP like any other.
    expect((await postModern(server.url, 'tools/list')).status).toBe(401);
  });
});
