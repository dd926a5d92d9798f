/**
 * ACP over HTTP behind a round-robin load balancer without affinity (issue 17, docs/deployment.md
 * "Replicas"): the SDK's own HTTP client talks to two `parley serve` replicas in turn, so its GET stream,
 * its prompt and its answer to the permission request land on different replicas; each request for the
 * connection reaches the replica that opened it. When that replica is killed, a request for the
 * connection is answered as for an unknown one, and the client initializes again and loads its session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { methods } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { messageText, recordingClient } from '../../../support/protocols/acp-client.ts';
import { replicasMissing, useReplicas } from '../../../support/replicas.ts';
import { roundRobin } from '../../../support/round-robin.ts';

const missing = replicasMissing();
if (missing) console.log(`acp-http.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

const { replica, workspace, writeQuery } = useReplicas('parley-replica-acp');

/** A raw session/list naming a connection, as the SDK client would send it, to `url`. */
const listSessionsOn = (url: string, connectionId: string, id: number) =>
  fetch(`${url}/acp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'acp-connection-id': connectionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'session/list', params: {} }),
  });

describe.skipIf(missing !== undefined)('ACP over HTTP across replicas', () => {
  it('serves one connection through a balancer without affinity: prompt, permission and updates', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const proxy = await roundRobin([a.url, b.url]);
    const rc = recordingClient();
    try {
      const { sessionId, stopReason } = await rc.app.connectWith(createHttpStream(`${proxy.url}/acp`), async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
        await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'orchestrate' });
        const { stopReason } = await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: writeQuery('acp-balanced.txt', 'through the balancer') }],
        });
        return { sessionId, stopReason };
      });
      expect(stopReason).toBe('end_turn');
      // The permission request went out on the connection's stream and the client's answer came back.
      expect(rc.permissions).toHaveLength(1);
      expect(readFileSync(join(workspace, 'acp-balanced.txt'), 'utf8')).toBe('through the balancer');
      expect(messageText(rc, sessionId)).not.toBe('');
      // One replica held the connection; the other passed requests to it.
      const logs = [a.log(), b.log()];
      expect(logs.some((log) => log.includes('"level":"error"'))).toBe(false);
    } finally {
      proxy.server.close();
    }
  });

  it('answers a connection whose replica was killed as unknown; the client starts again on another and loads its session', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const first = recordingClient();
    let sessionId = '';
    let connectionId: string | undefined;
    // Opened on A directly, so A holds it; its id is what the SDK client sends on every request.
    const stream = createHttpStream(`${a.url}/acp`, {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        connectionId ??= res.headers.get('acp-connection-id') ?? undefined;
        return res;
      },
    });
    await first.app
      .connectWith(stream, async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        sessionId = (await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
        const answered = await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: '[[route:direct]] What is a fjord?' }],
        });
        expect(answered.stopReason).toBe('end_turn');
        // While A lives, B passes a request for the connection to it.
        const viaB = await listSessionsOn(b.url, connectionId!, 99);
        expect(viaB.status).toBeLessThan(300);
        await viaB.body?.cancel();
        a.child.kill('SIGKILL');
        await a.exit;
      })
      .catch(() => undefined);
    expect(connectionId).toBeDefined();

    const stale = await listSessionsOn(b.url, connectionId!, 1);
    expect(stale.status).toBe(404);
    await stale.body?.cancel();

    const again = recordingClient();
    await again.app.connectWith(createHttpStream(`${b.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request(methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    });
    expect(messageText(again, sessionId)).toContain('fjord');
  });
});
