/**
 * MCP 2026-07-28 through the SDK's own client pinned to that revision (no initialize, no session,
 * `_meta` on every request), over Streamable HTTP and over stdio, against the real engine (scripted
 * model, the fixture MCP server whose write tool needs approval). Approvals come back as an
 * `input_required` result; the SDK client answers them with its elicitation handler and retries.
 * The 2025-11-25 behaviour of the same server is transports.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import {
  acceptingElicitation,
  MODERN,
  NOTE_QUERY,
  startMcpHttp,
  startMcpStdio,
  structured,
  type AskResult,
  type InputRequiredResult,
  MODERN_HEADERS as HEADERS,
  postModern as postRaw,
} from '../../../support/protocols/mcp-helpers.ts';

describe('MCP 2026-07-28 over Streamable HTTP', () => {
  let served: Awaited<ReturnType<typeof startMcpHttp>>;
  beforeAll(async () => {
    served = await startMcpHttp();
  }, 60_000);
  afterAll(async () => {
    await served?.close();
  });

  it('serves without a session: server/discover names the revision, lists carry cache hints', async () => {
    const client = await served.connect({ modern: true });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const raw = await postRaw(served.server.url, 'tools/list');
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    expect(raw.body.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    const discover = await postRaw(served.server.url, 'server/discover');
    expect(discover.body.result?.supportedVersions).toContain(MODERN);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('ask');
  });

  it.each([
    ['2026-07-28', true],
    ['2025-11-25', false],
  ])('prompts for the modes and completion of specialist names (%s)', async (_revision, modern) => {
    const client = await served.connect({ modern });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['council', 'plan', 'direct']);
    const plan = await client.getPrompt({ name: 'plan', arguments: { task: 'Keep a note', specialist: 'noter' } });
    const text = (plan.messages[0]!.content as { text: string }).text;
    expect(text).toContain('mode "orchestrate"');
    expect(text).toContain('Keep a note');
    expect(text).toContain('noter');
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'specialist', value: 'no' },
    });
    expect(completed.completion.values).toEqual(['noter']);
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'specialist', value: 'zzz' },
    });
    expect(none.completion.values).toEqual([]);
  });

  it('subscriptions/listen: a listening client hears that a run transcript appeared', async () => {
    const listener = await served.connect({ modern: true });
    let changed = 0;
    listener.setNotificationHandler('notifications/resources/list_changed', () => void (changed += 1));
    const subscription = await listener.listen({ resourcesListChanged: true });
    try {
      expect(subscription.honoredFilter).toMatchObject({ resourcesListChanged: true });
      const asker = await served.connect({ modern: true });
      const result = await asker.callTool({ name: 'ask', arguments: { query: 'What is a fjord?', mode: 'direct' } });
      expect(structured<AskResult>(result).status).toBe('completed');
      await expect.poll(() => changed, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      await subscription.close();
    }
  });

  it('subscriptions/listen with resourceSubscriptions: the run named hears notifications/resources/updated when it ends', async () => {
    const client = await served.connect({ modern: true });
    const asked = structured<InputRequiredResult>(
      await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } }),
    );
    const uri = `parley://runs/${asked.runId!}`;
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      expect(subscription.honoredFilter).toMatchObject({ resourceSubscriptions: [uri] });
      const [pending] = asked.pending;
      await client.callTool({ name: pending!.answerWith.tool, arguments: pending!.answerWith.arguments });
      await expect.poll(() => updated, { timeout: 20_000 }).toContain(uri);
    } finally {
      await subscription.close();
    }
  });

  it('ask: the approval comes back as input_required, the client answers it by retrying and gets the result', async () => {
    const asked: string[] = [];
    const client = await served.connect({ modern: true, elicit: acceptingElicitation(asked) });
    const before = served.writesTo('a2a.txt');
    const result = await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } });
    expect(result.isError).toBeFalsy();
    expect(structured<AskResult>(result).status).toBe('completed');
    expect(asked).toEqual([expect.stringContaining('fx/write_note')]);
    expect(served.writesTo('a2a.txt')).toBe(before + 1);
  });

  it('the raw round: input_required carries the pending tool call; the retry with the decision gets the result', async () => {
    const first = await postRaw(served.server.url, 'tools/call', { name: 'ask', arguments: { query: NOTE_QUERY } });
    const round = first.body.result as unknown as {
      resultType: string;
      inputRequests: Record<
        string,
        { method: string; params: { requestedSchema: { properties: Record<string, { title: string }> } } }
      >;
      requestState: string;
    };
    expect(round.resultType).toBe('input_required');
    const [requestId, request] = Object.entries(round.inputRequests)[0]!;
    expect(request.method).toBe('elicitation/create');
    const [toolCallId, field] = Object.entries(request.params.requestedSchema.properties)[0]!;
    expect(field.title).toBe('fx/write_note');
    const before = served.writesTo('a2a.txt');
    const retried = await postRaw(served.server.url, 'tools/call', {
      name: 'ask',
      arguments: { query: NOTE_QUERY },
      inputResponses: { [requestId]: { action: 'accept', content: { [toolCallId]: 'deny' } } },
      requestState: round.requestState,
    });
    expect(retried.body.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'completed' } });
    // Denied: the tool did not run.
    expect(served.writesTo('a2a.txt')).toBe(before);
  });

  it('a requestState that names no run of this caller is refused with -32602 and changes nothing', async () => {
    const forged = Buffer.from(JSON.stringify({ v: 1, runId: 'not-a-run' })).toString('base64url');
    for (const requestState of [forged, 'garbage']) {
      const res = await postRaw(served.server.url, 'tools/call', {
        name: 'ask',
        arguments: { query: 'x' },
        inputResponses: {},
        requestState,
      });
      expect(res.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    }
  });

  it("requestState is signed: one altered to name another of the same caller's runs, or with its MAC changed, is refused; the genuine one still works", async () => {
    type Round = { inputRequests: Record<string, unknown>; requestState: string };
    const ask = async () =>
      (await postRaw(served.server.url, 'tools/call', { name: 'ask', arguments: { query: NOTE_QUERY } })).body
        .result as unknown as Round;
    const [a, b] = [await ask(), await ask()];
    // The SDK codec's wire shape: "v1." base64url({ p: payload, exp, b: bindTag }) "." base64url(mac).
    const [version, body, mac] = a.requestState.split('.') as [string, string, string];
    expect(version).toBe('v1');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: { runId: string } };
    const runOfB = (
      JSON.parse(Buffer.from(b.requestState.split('.')[1]!, 'base64url').toString('utf8')) as {
        p: { runId: string };
      }
    ).p.runId;
    const swapped = Buffer.from(JSON.stringify({ ...claims, p: { runId: runOfB } })).toString('base64url');
    const flipped = mac.slice(0, -2) + (mac.endsWith('AA') ? 'BB' : 'AA');
    for (const requestState of [`v1.${swapped}.${mac}`, `v1.${body}.${flipped}`]) {
      const res = await postRaw(served.server.url, 'tools/call', {
        name: 'ask',
        arguments: { query: NOTE_QUERY },
        inputResponses: {},
        requestState,
      });
      expect(res.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    }
    // Nothing was decided: both runs still wait on their approval.
    expect(served.parley.approvals.listPending(claims.p.runId)).toHaveLength(1);
    expect(served.parley.approvals.listPending(runOfB)).toHaveLength(1);
    for (const round of [a, b]) {
      const [requestId] = Object.keys(round.inputRequests);
      const pending = served.parley.approvals.get(requestId!);
      const toolCallId = pending?.kind === 'tool' ? pending.toolCalls[0]!.toolCallId : '';
      const retried = await postRaw(served.server.url, 'tools/call', {
        name: 'ask',
        arguments: { query: NOTE_QUERY },
        inputResponses: { [requestId!]: { action: 'accept', content: { [toolCallId]: 'deny' } } },
        requestState: round.requestState,
      });
      expect(retried.body.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'completed' } });
    }
  });

  it('a client without elicitation gets the input_required status with the approve call, as on 2025-11-25', async () => {
    const client = await served.connect({ modern: true });
    const result = await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } });
    const out = structured<InputRequiredResult>(result);
    expect(out.status).toBe('input_required');
    const [pending] = out.pending;
    const answered = await client.callTool({
      name: pending!.answerWith.tool,
      arguments: pending!.answerWith.arguments,
    });
    expect(answered.isError).toBeFalsy();
    const got = await client.callTool({ name: 'get_run', arguments: { run_id: out.runId!, waitMs: 20_000 } });
    expect(structured<{ status: string }>(got).status).toBe('completed');
  });

  it('a request without the _meta envelope under a 2026-07-28 header, or naming an unknown revision, gets the spec errors', async () => {
    const missing = await fetch(`${served.server.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32602);
    const unknown = await postRaw(served.server.url, 'tools/list', undefined, '2099-01-01');
    expect(unknown.body.error).toMatchObject({ code: -32022, data: { supported: expect.arrayContaining([MODERN]) } });
  });
});

describe('MCP 2026-07-28 over stdio', () => {
  let client: Client;
  let close: () => Promise<void>;
  let writesTo: (path: string) => number;
  beforeAll(async () => {
    const served = await startMcpStdio({ modern: true, elicit: acceptingElicitation([]) });
    ({ client, close, writesTo } = served);
  }, 60_000);
  afterAll(async () => {
    await close?.();
  });

  it('lists its tools and answers an approval by retrying, without an initialize', async () => {
    expect(client.getServerVersion()?.name).toBe('parley');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('ask');
    const result = await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } });
    expect(structured<AskResult>(result).status).toBe('completed');
    expect(writesTo('a2a.txt')).toBe(1);
  });
});
