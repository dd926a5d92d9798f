/**
 * MCP 2026-07-28 across replicas (issue 30): the SDK's client pinned to the revision, stateless, talks
 * to two `parley serve` replicas (shared Postgres and Redis) through a round-robin balancer with no
 * affinity, so consecutive requests land on different replicas. It asks for a file write that needs a
 * human: the approval comes back as `input_required`, the client's elicitation handler accepts, the SDK
 * retries the call (on the other replica) and gets the run's result.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { acceptingElicitation, mcpClient, structured, type AskResult } from '../../../support/protocols/mcp-helpers.ts';
import { replicasMissing, useReplicas } from '../../../support/replicas.ts';
import type { ServeProcess } from '../../../support/serve-process.ts';
import { roundRobin } from '../../../support/round-robin.ts';

const missing = replicasMissing();
if (missing) console.log(`mcp-modern.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

// Two replicas for the file: no test kills or restarts one, and each reads only its own run.
const { sharedReplicas, workspace, writeQuery } = useReplicas('parley-replica-mcp-modern', {}, { shared: 2 });

describe.skipIf(missing !== undefined)('MCP 2026-07-28 across replicas', () => {
  it('a stateless client behind a round-robin balancer asks, answers the approval by retrying, and gets the result', async () => {
    const [a, b] = sharedReplicas() as [ServeProcess, ServeProcess];
    const from = [a.log().length, b.log().length];
    const proxy = await roundRobin([a.url, b.url]);
    const asked: string[] = [];
    const client = mcpClient('balanced-2026', acceptingElicitation(asked), { modern: true });
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`));
    try {
      await client.connect(transport);
      expect(client.getProtocolEra()).toBe('modern');
      const result = await client.callTool({
        name: 'ask',
        arguments: { query: writeQuery('modern.txt', 'approved by retrying'), mode: 'orchestrate' },
      });
      expect(result.isError).toBeFalsy();
      expect(structured<AskResult>(result).status).toBe('completed');
      expect(asked).toEqual([expect.stringContaining('write_file')]);
      expect(readFileSync(join(workspace, 'modern.txt'), 'utf8')).toBe('approved by retrying');
      // No session anywhere: neither replica opened or revived one.
      expect(transport.sessionId).toBeUndefined();
      for (const [i, r] of [a, b].entries())
        expect(r.log().slice(from[i]), r.url).not.toContain('mcp: serving a session opened elsewhere');
    } finally {
      await client.close();
      proxy.server.close();
    }
  });

  it('subscriptions/listen on one replica hears of a run recorded on the other (over the cluster)', async () => {
    const [a, b] = sharedReplicas() as [ServeProcess, ServeProcess];
    const listener = mcpClient('listens-on-a', undefined, { modern: true });
    const asker = mcpClient('asks-on-b', undefined, { modern: true });
    await listener.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`)));
    await asker.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`)));
    let changed = 0;
    listener.setNotificationHandler('notifications/resources/list_changed', () => void (changed += 1));
    const subscription = await listener.listen({ resourcesListChanged: true });
    try {
      const result = await asker.callTool({ name: 'ask', arguments: { query: 'What is a fjord?', mode: 'direct' } });
      expect(structured<AskResult>(result).status).toBe('completed');
      await expect.poll(() => changed, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      await subscription.close();
      await Promise.all([listener.close(), asker.close()]);
    }
  });
});
