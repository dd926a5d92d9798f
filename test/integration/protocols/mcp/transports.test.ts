/**
 * Parley as an MCP server, the same cases over each transport: Streamable HTTP on 127.0.0.1 (the
 * engine in this process) and stdio (a separate process running serveMcpStdio). Both are driven by
 * the MCP client SDK against the real engine (scripted model, Kuzu in memory, the fixture MCP server
 * whose write tool needs approval); the client accepts every elicitation. Cases only one transport
 * has (sessions, Host checks, raw HTTP bodies) are in http.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import {
  acceptingElicitation,
  NOTE_QUERY,
  progressLog,
  startMcpHttp,
  startMcpStdio,
  structured,
  textOf,
  type AskResult,
} from '../../../support/protocols/mcp-helpers.ts';

interface Served {
  client: Client;
  /** Messages of the elicitations the client was sent. */
  asked: string[];
  writesTo(path: string): number;
  /** The status a finished run ended with. */
  finalStatus(runId: string): Promise<string | undefined>;
  /** Who answered each approval of a run, as recorded (in process only: stdio's store lives in its own process). */
  approvalActors?(runId: string): Promise<string[]>;
  close(): Promise<void>;
}

const TRANSPORTS: { name: string; start(): Promise<Served> }[] = [
  {
    name: 'Streamable HTTP',
    async start() {
      const served = await startMcpHttp();
      const asked: string[] = [];
      const client = await served.connect({ elicit: acceptingElicitation(asked) });
      return {
        client,
        asked,
        writesTo: served.writesTo,
        finalStatus: async (runId) => (await served.parley.engine.get(runId)?.result)?.status,
        approvalActors: async (runId) => (await served.parley.store.listApprovals(runId)).map((a) => a.actor),
        close: served.close,
      };
    },
  },
  {
    name: 'stdio',
    async start() {
      const asked: string[] = [];
      const served = await startMcpStdio({ elicit: acceptingElicitation(asked) });
      const client = served.client;
      return {
        client,
        asked,
        writesTo: served.writesTo,
        // The run lives in the other process: get_run answers once the run is recorded (that is, ended).
        finalStatus: async (runId) => {
          let status: string | undefined;
          await expect
            .poll(
              async () => {
                const r = await client.callTool({ name: 'get_run', arguments: { run_id: runId } });
                status = r.isError ? undefined : structured<{ status: string }>(r).status;
                return status !== undefined && status !== 'running';
              },
              { timeout: 10_000 },
            )
            .toBe(true);
          return status;
        },
        close: served.close,
      };
    },
  },
];

describe.each(TRANSPORTS)('MCP server over $name', ({ start }) => {
  let served: Served;
  beforeAll(async () => {
    served = await start();
  }, 60_000);
  afterAll(async () => {
    await served?.close();
  });

  it('lists its tools with descriptions and input schemas', async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'approve',
      'ask',
      'council',
      'get_run',
      'list_specialists',
      'search_memory',
    ]);
    for (const t of tools) expect(t.description?.length).toBeGreaterThan(20);
    const ask = tools.find((t) => t.name === 'ask')!;
    expect(ask.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
    expect(ask.outputSchema).toBeDefined();
  });

  it('ask runs the graph, sends progress per node and step, and returns the answer with run id and usage', async () => {
    const progress = progressLog();
    const result = await served.client.callTool(
      { name: 'ask', arguments: { query: 'noter: keep notes on two topics [[route:plan]] [[steps:2]]' } },
      { onprogress: progress.onprogress },
    );
    expect(result.isError).toBeFalsy();
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    expect(out.answer).toBeTruthy();
    expect(textOf(result)).toBe(out.answer);
    expect(out.usage.modelCalls).toBeGreaterThan(0);
    expect(await served.finalStatus(out.runId)).toBe('completed');

    const messages = progress.seen.map((p) => p.message ?? '');
    expect(messages[0]).toBe(`run ${out.runId} started`);
    expect(messages).toContain('node router');
    expect(messages.filter((m) => /^step s\S* started/.test(m))).toHaveLength(2);
    expect(messages.filter((m) => /^step s\S* succeeded/.test(m))).toHaveLength(2);
    const values = progress.seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it('asks for approval through elicitation and resolves the broker with the answer (the tool runs)', async () => {
    const askedBefore = served.asked.length;
    const before = served.writesTo('a2a.txt');
    const result = await served.client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } });
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    const asked = served.asked.slice(askedBefore);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('fx/write_note');
    expect(served.writesTo('a2a.txt')).toBe(before + 1);
    if (served.approvalActors) await expect.poll(() => served.approvalActors!(out.runId)).toEqual(['mcp-elicitation']);
  });

  it('client cancellation cancels the run', async () => {
    const progress = progressLog();
    const abort = new AbortController();
    const asking = served.client.callTool(
      { name: 'ask', arguments: { query: 'this never answers [[fault:hang]]' } },
      { onprogress: progress.onprogress, signal: abort.signal },
    );
    const [, runId] = await progress.waitFor(/^run (\S+) started/);
    await progress.waitFor(/^node router/);
    abort.abort();
    await expect(asking).rejects.toThrow();
    expect(await served.finalStatus(runId!)).toBe('cancelled');
  });

  it('bad arguments are a tool error result, not a crash, and the session goes on', async () => {
    const client = served.client;
    const wrongType = await client.callTool({ name: 'ask', arguments: { query: 42 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/query/);
    const badMode = await client.callTool({ name: 'ask', arguments: { query: 'hi', mode: 'turbo' } });
    expect(badMode.isError).toBe(true);
    const badSearch = await client.callTool({ name: 'search_memory', arguments: { query: '', k: 500 } });
    expect(badSearch.isError).toBe(true);
    const unknownRun = await client.callTool({ name: 'get_run', arguments: { run_id: 'no-such-run' } });
    expect(unknownRun).toMatchObject({ isError: true });
    const unknownApproval = await client.callTool({
      name: 'approve',
      arguments: { request_id: 'nope', decisions: {} },
    });
    expect(unknownApproval.isError).toBe(true);
    expect(textOf(unknownApproval)).toMatch(/not_found/);
    expect((await client.listTools()).tools.length).toBe(6);
  });

  // The SDK answered these with -32603 Internal error and a raw zod issue dump (found by the fuzz test on /mcp).
  it("params that do not match the request's schema get -32602 naming the field, and the server keeps serving", async () => {
    const err = await served.client
      .request({ method: 'logging/setLevel', params: { level: 'loud' as 'info' } })
      .catch((e: unknown) => e as { code?: number; message?: string });
    expect(err).toMatchObject({ code: -32602 });
    expect((err as { message: string }).message).toMatch(/Invalid params: params\.level: Invalid option/);
    expect((err as { message: string }).message).not.toMatch(/\n|"code"/);
    expect((await served.client.listTools()).tools).toHaveLength(6);
  });
});
