/**
 * Parley as an MCP server, the same cases over each transport: Streamable HTTP on 127.0.0.1 (the
 * engine in this process) and stdio (a separate process running serveMcpStdio). Both are driven by
 * the MCP client SDK against the real engine (scripted model, Kuzu in memory, the fixture MCP server
 * whose write tool needs approval); the client accepts every elicitation. Two more clients, one
 * without elicitation and one whose elicitation handler throws, approve through input_required.
 * Cases only one transport has (sessions, Host checks, raw HTTP bodies) are in http.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import {
  acceptingElicitation,
  failingElicitation,
  notificationsOf,
  NOTE_QUERY,
  type Elicit,
  type InputRequiredResult,
  progressLog,
  startMcpHttp,
  startMcpStdio,
  structured,
  textOf,
  type AskResult,
} from '../../../support/protocols/mcp-helpers.ts';
import { READ_QUERY, STANDUP_REFERENCE, STANDUP_SOURCE } from '../../../support/protocols/citing.ts';
import { expectNumbered, expectUncited } from '../../../support/protocols/citing-expect.ts';

interface Served {
  client: Client;
  /** Messages of the elicitations the client was sent. */
  asked: string[];
  writesTo(path: string): number;
  /** The status a finished run ended with. */
  finalStatus(runId: string): Promise<string | undefined>;
  /** Who answered each approval of a run, as recorded (in process only: stdio's store lives in its own process). */
  approvalActors?(runId: string): Promise<string[]>;
  /** Another client (no elicitation when `elicit` is undefined), with the writes its server's tool host made. */
  another(elicit?: Elicit): Promise<Other>;
  close(): Promise<void>;
}

interface Other {
  client: Client;
  writesTo(path: string): number;
  notifications: ReturnType<typeof notificationsOf>;
}

const TRANSPORTS: { name: string; start(): Promise<Served> }[] = [
  {
    name: 'Streamable HTTP',
    async start() {
      const served = await startMcpHttp({ reader: true });
      const asked: string[] = [];
      const client = await served.connect({ elicit: acceptingElicitation(asked) });
      return {
        client,
        asked,
        writesTo: served.writesTo,
        finalStatus: async (runId) => (await served.parley.engine.get(runId)?.result)?.status,
        approvalActors: async (runId) => (await served.parley.store.listApprovals(runId)).map((a) => a.actor),
        another: async (elicit) => {
          const other = await served.connect({ elicit });
          return { client: other, writesTo: served.writesTo, notifications: notificationsOf(other) };
        },
        close: served.close,
      };
    },
  },
  {
    name: 'stdio',
    async start() {
      const asked: string[] = [];
      const served = await startMcpStdio({ elicit: acceptingElicitation(asked), reader: true });
      const client = served.client;
      // Each stdio client is its own Parley process (its own engine and tool host).
      const others: { close(): Promise<void> }[] = [];
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
        another: async (elicit) => {
          const other = await startMcpStdio({ elicit });
          others.push(other);
          return { client: other.client, writesTo: other.writesTo, notifications: notificationsOf(other.client) };
        },
        close: async () => {
          for (const o of others) await o.close();
          await served.close();
        },
      };
    },
  },
];

/** Well under the SDK's 60 s request timeout: an IDE gets the pending approval in time to show it. */
const PROMPTLY_MS = 20_000;

describe.each(TRANSPORTS)('MCP server over $name', ({ start }) => {
  let served: Served;
  /** A client without elicitation, and one whose elicitation handler throws. */
  let quiet: Other;
  let failing: Other;
  beforeAll(async () => {
    served = await start();
    [quiet, failing] = await Promise.all([served.another(), served.another(failingElicitation)]);
  }, 60_000);
  afterAll(async () => {
    await served?.close();
  });

  /** Asks NOTE_QUERY (one fx/write_note call that needs approval) and returns its input_required answer and how long it took. */
  async function askForApproval(other: Other) {
    const progress = progressLog();
    const t0 = Date.now();
    const result = await other.client.callTool(
      { name: 'ask', arguments: { query: NOTE_QUERY } },
      { onprogress: progress.onprogress },
    );
    return { result, out: structured<InputRequiredResult>(result), elapsedMs: Date.now() - t0, progress };
  }

  it('a client without elicitation gets input_required promptly with the pending tool call; approve continues the run and get_run returns the result', async () => {
    const before = quiet.writesTo('a2a.txt');
    const { result, out, elapsedMs } = await askForApproval(quiet);
    expect(elapsedMs).toBeLessThan(PROMPTLY_MS);
    expect(result.isError).toBeFalsy();
    expect(out.status).toBe('input_required');
    expect(out.pending).toHaveLength(1);
    const [pending] = out.pending;
    expect(pending!.kind).toBe('tool');
    expect(pending!.toolCalls).toEqual([
      {
        toolCallId: expect.any(String),
        tool: 'fx/write_note',
        arguments: { path: 'a2a.txt', content: 'hello' },
        reason: expect.any(String),
      },
    ]);
    const callId = pending!.toolCalls[0]!.toolCallId;
    expect(pending!.answerWith).toEqual({
      tool: 'approve',
      arguments: { request_id: pending!.requestId, decisions: { [callId]: 'accept' } },
    });
    expect(out.then).toEqual({ tool: 'get_run', arguments: { run_id: out.runId, waitMs: expect.any(Number) } });
    expect(textOf(result)).toContain(callId);
    // Nothing ran yet: the run waits for the answer.
    expect(quiet.writesTo('a2a.txt')).toBe(before);
    const meanwhile = await quiet.client.callTool({ name: 'get_run', arguments: { run_id: out.runId } });
    expect(structured<InputRequiredResult>(meanwhile)).toMatchObject({ id: out.runId, status: 'input_required' });

    const approved = await quiet.client.callTool({
      name: pending!.answerWith.tool,
      arguments: pending!.answerWith.arguments,
    });
    expect(approved.isError).toBeFalsy();
    expect(structured<{ then: unknown }>(approved).then).toMatchObject({
      tool: 'get_run',
      arguments: { run_id: out.runId },
    });
    const done = await quiet.client.callTool({ name: 'get_run', arguments: { run_id: out.runId, waitMs: 20_000 } });
    expect(done.isError).toBeFalsy();
    expect(structured<{ status: string; answer?: string }>(done)).toMatchObject({
      status: 'completed',
      answer: expect.any(String),
    });
    expect(quiet.writesTo('a2a.txt')).toBe(before + 1);
  });

  it('a client without elicitation that denies: the run completes without the tool call', async () => {
    const before = quiet.writesTo('a2a.txt');
    const { out } = await askForApproval(quiet);
    expect(out.status).toBe('input_required');
    const [pending] = out.pending;
    const denied = await quiet.client.callTool({
      name: 'approve',
      arguments: {
        request_id: pending!.requestId,
        decisions: Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'deny'])),
      },
    });
    expect(denied.isError).toBeFalsy();
    expect(structured<{ outcome: { decision: unknown } }>(denied).outcome.decision).toMatchObject({
      kind: 'tool',
      decisions: { [pending!.toolCalls[0]!.toolCallId]: { type: 'deny' } },
    });
    const done = await quiet.client.callTool({ name: 'get_run', arguments: { run_id: out.runId, waitMs: 20_000 } });
    expect(structured<{ status: string }>(done).status).toBe('completed');
    expect(quiet.writesTo('a2a.txt')).toBe(before);
  });

  // onApproval "wait" keeps the call open, so the announcements are all the client has to answer with.
  it('announces a pending approval with its tool call ids in progress and in a log notification, enough to answer it', async () => {
    const logsBefore = quiet.notifications.logs.length;
    const before = quiet.writesTo('a2a.txt');
    const progress = progressLog();
    const asking = quiet.client.callTool(
      { name: 'ask', arguments: { query: NOTE_QUERY, onApproval: 'wait' } },
      { onprogress: progress.onprogress },
    );
    const [announced, requestId, callId] = await progress.waitFor(
      /^approval needed: request (\S+) for fx\/write_note \(call (\S+)\)/,
    );
    expect(announced).toBeTruthy();
    let logged:
      { approvalNeeded: string; runId: string; toolCalls: { toolCallId: string; tool: string }[] } | undefined;
    await expect
      .poll(() => {
        logged = quiet.notifications.logs
          .slice(logsBefore)
          .map((l) => l.data as typeof logged)
          .find((d) => d?.approvalNeeded === requestId);
        return logged;
      })
      .toBeDefined();
    expect(logged!.toolCalls).toEqual([
      {
        toolCallId: callId,
        tool: 'fx/write_note',
        arguments: { path: 'a2a.txt', content: 'hello' },
        reason: expect.any(String),
      },
    ]);
    const approved = await quiet.client.callTool({
      name: 'approve',
      arguments: { request_id: requestId, decisions: { [callId!]: 'accept' } },
    });
    expect(approved.isError).toBeFalsy();
    const out = structured<AskResult>(await asking);
    expect(out).toMatchObject({ status: 'completed', runId: logged!.runId });
    expect(quiet.writesTo('a2a.txt')).toBe(before + 1);
  });

  it('a client whose elicitation handler throws is told at once (input_required with the error), and can approve with the tool', async () => {
    const before = failing.writesTo('a2a.txt');
    const { out, elapsedMs } = await askForApproval(failing);
    expect(elapsedMs).toBeLessThan(PROMPTLY_MS);
    expect(out.status).toBe('input_required');
    expect(out.elicitationError).toMatch(/cannot show forms/);
    expect(out.pending[0]!.toolCalls[0]!.tool).toBe('fx/write_note');
    await expect
      .poll(() => failing.notifications.logs.map((l) => l.data))
      .toContainEqual(expect.objectContaining({ elicitationFailed: out.pending[0]!.requestId }));
    const approved = await failing.client.callTool({
      name: 'approve',
      arguments: out.pending[0]!.answerWith.arguments,
    });
    expect(approved.isError).toBeFalsy();
    const done = await failing.client.callTool({ name: 'get_run', arguments: { run_id: out.runId, waitMs: 20_000 } });
    expect(structured<{ status: string }>(done).status).toBe('completed');
    expect(failing.writesTo('a2a.txt')).toBe(before + 1);
  });

  it('sends notifications/resources/list_changed when a run transcript appears', async () => {
    const before = quiet.notifications.listChanged();
    const result = await quiet.client.callTool({ name: 'ask', arguments: { query: 'hello there [[route:direct]]' } });
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    await expect.poll(() => quiet.notifications.listChanged()).toBeGreaterThan(before);
    const { resources } = await quiet.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`parley://runs/${out.runId}`);
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

  it('get_run with waitMs waits that long for a run that neither ends nor needs a human, then answers running', async () => {
    const progress = progressLog();
    const abort = new AbortController();
    const asking = served.client.callTool(
      { name: 'ask', arguments: { query: 'this never answers [[fault:hang]]' } },
      { onprogress: progress.onprogress, signal: abort.signal },
    );
    const [, runId] = await progress.waitFor(/^run (\S+) started/);
    const t0 = Date.now();
    const waited = await served.client.callTool({ name: 'get_run', arguments: { run_id: runId, waitMs: 400 } });
    const elapsedMs = Date.now() - t0;
    expect(structured<{ id: string; status: string }>(waited)).toEqual({ id: runId, status: 'running' });
    expect(elapsedMs).toBeGreaterThanOrEqual(400);
    expect(elapsedMs).toBeLessThan(PROMPTLY_MS);
    abort.abort();
    await expect(asking).rejects.toThrow();
    expect(await served.finalStatus(runId!)).toBe('cancelled');
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
    const tooLongWait = await client.callTool({
      name: 'get_run',
      arguments: { run_id: 'no-such-run', waitMs: 600_000 },
    });
    expect(tooLongWait.isError).toBe(true);
    expect(textOf(tooLongWait)).toMatch(/waitMs/);
    const unknownWaited = await client.callTool({
      name: 'get_run',
      arguments: { run_id: 'no-such-run', waitMs: 5_000 },
    });
    expect(textOf(unknownWaited)).toBe('No run with id no-such-run.');
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

  describe('ask with citations', () => {
    type Cited = AskResult & { sources?: unknown[]; references?: unknown[] };
    const readNotes = async (citations?: string) => {
      const result = await served.client.callTool({
        name: 'ask',
        arguments: { query: READ_QUERY, ...(citations ? { citations } : {}) },
      });
      expect(result.isError).toBeFalsy();
      const out = structured<Cited>(result);
      expect(out.status).toBe('completed');
      expect(textOf(result)).toBe(out.answer);
      return { said: textOf(result), out };
    };

    it('"numbered": the text cites [1] and lists standup.md; structuredContent carries the references', async () => {
      const { said, out } = await readNotes('numbered');
      expectNumbered(said);
      expect(out.references).toEqual([STANDUP_REFERENCE]);
      expect(out.sources).toEqual([STANDUP_SOURCE]);
    });

    it('without it: no [n] in the text; the file read still comes as structured content, with no references', async () => {
      const { said, out } = await readNotes();
      expectUncited(said);
      expect(out.sources).toEqual([STANDUP_SOURCE]);
      expect(out.references).toBeUndefined();
    });

    it('an unknown style is a tool error naming citations', async () => {
      const result = await served.client.callTool({
        name: 'ask',
        arguments: { query: READ_QUERY, citations: 'footnotes' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/citations: Invalid option: expected one of "none"\|"numbered"/);
    });
  });
});
