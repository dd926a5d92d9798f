/** ACP over WebSocket at /acp on the real server (createParley), with the SDK's WebSocket client stream. */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { methods } from '@agentclientprotocol/sdk';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { loadConfig } from '../../../../src/config.ts';
import { callerIdOf } from '../../../../src/http/auth.ts';
import { silentLogger } from '../../../../src/log.ts';
import { createParley, type Parley } from '../../../../src/server.ts';
import { messageText, recordingClient, statuses, updatesOf } from '../../../support/protocols/acp-client.ts';

const KEY = 'acp-ws-key';
const EMPTY_MCP = fileURLToPath(new URL('../../../fixtures/mcp-empty.json', import.meta.url));
let parley: Parley;
let wsUrl: string;

beforeAll(async () => {
  const config = loadConfig({
    PARLEY_PORT: '0',
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP,
    PARLEY_API_KEYS: KEY,
    PARLEY_LOG_LEVEL: 'silent',
  });
  parley = await createParley(config, { logger: silentLogger, telemetry: false });
  const { url } = await parley.listen();
  wsUrl = `${url.replace(/^http/, 'ws')}/acp`;
});
afterAll(async () => {
  await parley?.close();
});

const connect = (headers: Record<string, string>) =>
  createWebSocketStream(wsUrl, { WebSocket: WebSocket as never, headers });
const runIdOf = (meta: unknown) => (meta as { parley: { runId: string } }).parley.runId;

describe('ACP over WebSocket (/acp)', () => {
  it('a prompt runs to completion with plan updates, accounted to the API key that connected', async () => {
    const rc = recordingClient();
    await rc.app.connectWith(connect({ authorization: `Bearer ${KEY}` }), async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(
        '[[route:plan]] [[steps:2]] Compare two caching strategies and summarize them',
      );
      expect(response.stopReason).toBe('end_turn');
      const plans = updatesOf(rc, session.sessionId, 'plan');
      expect(statuses(plans.at(-1)!.entries)).toEqual(['completed', 'completed']);
      const result = await parley.engine.get(runIdOf(response._meta))!.result;
      expect(messageText(rc, session.sessionId)).toBe(result.answer);
      expect(await parley.store.getRun(result.runId)).toMatchObject({ protocol: 'acp', callerId: callerIdOf(KEY) });
    });
  });

  it('refuses an upgrade without a valid key, and starts nothing', async () => {
    const before = parley.engine.retainedRuns;
    const rc = recordingClient();
    await expect(
      rc.app.connectWith(connect({ authorization: 'Bearer wrong' }), async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      }),
    ).rejects.toBeDefined();
    expect(parley.engine.retainedRuns).toBe(before);
  });
});
