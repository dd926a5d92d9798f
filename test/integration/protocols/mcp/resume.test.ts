/**
 * MCP Streamable HTTP resumability (docs/protocols/mcp.md "Resuming a stream"): the server keeps each SSE
 * message in the event store (src/store/mcp-events/), so a client whose `ask` stream is cut mid-run
 * reconnects with Last-Event-ID and receives the remaining progress and the result. Driven by the MCP
 * client SDK's own reconnection, against the real engine and a real connection that is really aborted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  mcpClient,
  NOTE_QUERY,
  progressLog,
  startMcpHttp,
  structured,
  type AskResult,
} from '../../../support/protocols/mcp-helpers.ts';

let served: Awaited<ReturnType<typeof startMcpHttp>>;
beforeAll(async () => {
  served = await startMcpHttp();
});
afterAll(async () => {
  await served?.close();
});

/** A fetch that can abort the connection of the last tools/call POST, and records each Last-Event-ID it sends. */
function cuttableFetch() {
  const resumedWith: string[] = [];
  let cut: (() => void) | undefined;
  const wrapped: typeof fetch = async (input, init) => {
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    if (lastEventId) resumedWith.push(lastEventId);
    if (init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"ask"')) {
      const controller = new AbortController();
      init.signal?.addEventListener('abort', () => controller.abort());
      cut = () => controller.abort(new Error('connection cut by the test'));
      return fetch(input, { ...init, signal: controller.signal });
    }
    return fetch(input, init);
  };
  return { fetch: wrapped, resumedWith, cut: () => cut?.() };
}

describe('MCP Streamable HTTP resumability', () => {
  it('an ask whose stream is cut mid-run resumes with the last event id and gets the remaining progress and the result', async () => {
    const net = cuttableFetch();
    const client = await served.connect({ fetch: net.fetch });
    const progress = progressLog();
    const before = served.writesTo('a2a.txt');
    const asking = client.callTool(
      { name: 'ask', arguments: { query: NOTE_QUERY, onApproval: 'wait' } },
      { onprogress: progress.onprogress },
    );
    const [, requestId] = await progress.waitFor(/approval needed: request (\S+)/);
    const seenBeforeCut = progress.seen.length;
    net.cut();
    // The run goes on while the client is away; what it says meanwhile waits in the event store.
    const pending = served.parley.approvals.get(requestId!);
    const callIds = pending?.kind === 'tool' ? pending.toolCalls.map((c) => c.toolCallId) : [];
    expect(callIds.length).toBeGreaterThan(0);
    const approved = await client.callTool({
      name: 'approve',
      arguments: { request_id: requestId, decisions: Object.fromEntries(callIds.map((id) => [id, 'accept'])) },
    });
    expect(approved.isError).toBeFalsy();

    const out = structured<AskResult>(await asking);
    expect(out.status).toBe('completed');
    expect(out.answer).toBeTruthy();
    expect(served.writesTo('a2a.txt')).toBe(before + 1);
    expect(net.resumedWith.length).toBeGreaterThan(0);
    expect(net.resumedWith[0]).toMatch(/\|\d+$/);
    expect(progress.seen.length).toBeGreaterThan(seenBeforeCut);

    // Another session cannot replay this one's stream with its event id (the SDK's own answer to an unknown id).
    const other = new StreamableHTTPClientTransport(new URL(`${served.server.url}/mcp`));
    const otherClient = mcpClient('other');
    await otherClient.connect(other);
    const stolen = await fetch(`${served.server.url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': other.sessionId!,
        'mcp-protocol-version': other.protocolVersion ?? '2025-11-25',
        'last-event-id': net.resumedWith[0]!,
      },
    });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).not.toContain('progress');
    await otherClient.close();
  });
});
