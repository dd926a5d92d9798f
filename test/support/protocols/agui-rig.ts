/**
 * Test rig for the AG-UI, SSE and OpenAI-compatible adapters: the real engine (createTestParley)
 * with the test roster plus a "noter" specialist whose only tool is the fixture MCP server's
 * destructive write_note (so its calls stop for approval), served behind the real HTTP app
 * (auth, body limit, error handler) with /api/approve on 127.0.0.1.
 */
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import { silentLogger } from '../../../src/log.ts';
import { aguiRoutes } from '../../../src/protocols/agui/index.ts';
import { openaiRoutes } from '../../../src/protocols/openai/index.ts';
import { sseRoutes } from '../../../src/protocols/sse/index.ts';
import { NOTER } from './a2a-helpers.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { createTestParley, type TestParley, type TestParleyOptions } from '../engine.ts';
import { serveRoutes, type TestServer } from '../http.ts';

/** A specialist whose only tool asks the user for a city (an MCP elicitation). */
export const ASKER = {
  ...NOTER,
  id: 'asker',
  name: 'asker',
  description: 'Asks which city to use',
  domains: ['cities'],
  prompt: 'You ask.',
  tools: ['fx/ask_city'],
};

/** A query planned onto the asker, whose ask_city call elicits input from the user. */
export const ASK_QUERY = 'asker: ask which city [[route:plan]] [[steps:1]] [[tool:fx/ask_city {}]]';

/** A query planned onto the noter, whose write_note call then waits for a human. */
export const NOTE_QUERY =
  'noter: keep notes [[route:plan]] [[steps:1]] [[tool:fx/write_note {"path":"agui.txt","content":"hello"}]]';

export interface Rig {
  parley: TestParley;
  fixture: FixtureHttpServer;
  server: TestServer;
  url: string;
  close(): Promise<void>;
}

export async function startRig(
  options: TestParleyOptions & { heartbeatMs?: number; apiKeys?: string[] } = {},
): Promise<Rig> {
  const fixture = await startFixtureHttpServer();
  const parley = await createTestParley({
    specialists: [NOTER, ASKER],
    mcpServers: { fx: { url: fixture.mcpUrl } },
    ...options,
  });
  const config = {
    ...parley.config,
    protocols: {
      ...parley.config.protocols,
      sseHeartbeatMs: options.heartbeatMs ?? parley.config.protocols.sseHeartbeatMs,
    },
  };
  const deps = { engine: parley.engine, approvals: parley.approvals, config, logger: silentLogger };
  const server = await serveRoutes(
    [
      { path: '/', app: aguiRoutes(deps) },
      { path: '/', app: sseRoutes(deps) },
      { path: '/', app: openaiRoutes(deps) },
      { path: '/', app: approvalRoutes({ broker: parley.approvals }) },
    ],
    { apiKeys: options.apiKeys ?? [] },
  );
  return {
    parley,
    fixture,
    server,
    url: server.url,
    close: async () => {
      await server.close();
      await parley.close();
      await fixture.close();
    },
  };
}

/** Polls until check() is truthy (a run reaching a state driven by other processes). */
export async function until<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
