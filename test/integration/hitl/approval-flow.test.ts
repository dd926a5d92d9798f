/**
 * The pieces an engine step uses, wired as the engine wires them: guard → broker → (human via
 * POST /api/approve) → McpToolHost, against a real MCP server. The engine-level test (events
 * order, run completes) lives with the engine; this proves the contract it builds on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { needsApproval } from '../../../src/hitl/guard.ts';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import type { ApprovalRequest } from '../../../src/hitl/types.ts';
import type { ApprovalRecord } from '../../../src/knowledge/store.ts';
import { McpToolHost } from '../../../src/tools/mcp-host.ts';
import type { ToolCallResult } from '../../../src/tools/types.ts';
import { listen, type TestServer } from '../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';

const KEY = 'flow-key';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
let mcp: FixtureHttpServer;
let api: TestServer;
let host: McpToolHost;
const records: ApprovalRecord[] = [];
const broker = new ApprovalBroker({
  timeoutMs: 30_000,
  defaultDecision: 'deny',
  recordApproval: async (r) => void records.push(r),
});

beforeAll(async () => {
  mcp = await startFixtureHttpServer();
  const app = new Hono();
  app.use('/api/*', bearerAuth({ token: KEY }));
  app.route('/', approvalRoutes({ broker }));
  api = await listen(app);
  host = new McpToolHost({
    servers: { fs: { url: mcp.mcpUrl } },
    settings: {
      connect: 'lazy',
      timeoutMs: 10_000,
      breakerThreshold: 5,
      breakerCooldownMs: 30_000,
      resultMaxChars: 20_000,
    },
  });
});
afterAll(async () => {
  await host.close();
  await broker.close();
  await api.close();
  await mcp.close();
});

/** What a prompt specialist's tool loop does with one model tool call. */
async function gatedCall(
  toolId: string,
  args: Record<string, unknown>,
  opts: {
    runId: string;
    toolCallId: string;
    signal?: AbortSignal;
    timeoutMs?: number;
    onRequested?: (r: ApprovalRequest) => void;
  },
): Promise<{ ran: boolean; result?: ToolCallResult; feedback?: string; resolvedBy?: string }> {
  const signal = opts.signal ?? new AbortController().signal;
  const tool = (await host.getTool(toolId))!;
  const verdict = needsApproval(tool, 'annotations');
  if (verdict.required) {
    const { request, outcome } = broker.request(
      {
        kind: 'tool',
        runId: opts.runId,
        toolCalls: [
          {
            toolCallId: opts.toolCallId,
            tool: toolId,
            args,
            reason: verdict.reason,
            annotations: tool.annotations,
            inputSchema: tool.inputSchema,
          },
        ],
      },
      { signal, timeoutMs: opts.timeoutMs },
    );
    opts.onRequested?.(request);
    const { decision, resolvedBy } = await outcome;
    if (decision.kind !== 'tool') throw new Error('unexpected');
    const d = decision.decisions[opts.toolCallId]!;
    if (d.type === 'deny') return { ran: false, feedback: decision.feedback, resolvedBy };
    if (d.type === 'edit') args = d.args;
  }
  const result = await host.callTool(toolId, args, {
    runId: opts.runId,
    stepId: 's',
    toolCallId: opts.toolCallId,
    signal,
  });
  return { ran: true, result };
}

async function waitPending(runId: string): Promise<ApprovalRequest> {
  await expect.poll(() => broker.listPending(runId).length).toBe(1);
  return broker.listPending(runId)[0]!;
}
const approve = (body: unknown) =>
  fetch(`${api.url}/api/approve`, { method: 'POST', headers, body: JSON.stringify(body) });
const writesTo = (path: string) => mcp.state.writes.filter((w) => w.path === path);

describe('a destructive MCP tool call waits for a human', () => {
  it('read-only tools run without asking', async () => {
    const out = await gatedCall('fs/read_note', { path: 'r' }, { runId: 'r0', toolCallId: 't0' });
    expect(out).toMatchObject({ ran: true, result: { ok: true } });
    expect(records.some((r) => r.runId === 'r0')).toBe(false);
  });

  it('accept: the request is announced before the tool runs, then the tool runs', async () => {
    let writesAtRequest = -1;
    const flow = gatedCall(
      'fs/write_note',
      { path: 'accept.txt', content: 'v1' },
      {
        runId: 'r1',
        toolCallId: 't1',
        onRequested: () => (writesAtRequest = writesTo('accept.txt').length),
      },
    );
    const request = await waitPending('r1');
    expect(request).toMatchObject({
      kind: 'tool',
      toolCalls: [{ tool: 'fs/write_note', reason: 'annotations: destructiveHint' }],
    });
    expect(writesAtRequest).toBe(0);
    expect(writesTo('accept.txt')).toEqual([]);
    expect((await approve({ request_id: request.id, decisions: { t1: 'accept' } })).status).toBe(200);
    expect(await flow).toMatchObject({ ran: true, result: { ok: true } });
    expect(writesTo('accept.txt')).toEqual([{ path: 'accept.txt', content: 'v1' }]);
  });

  it('deny: the tool never runs and the feedback reaches the caller', async () => {
    const flow = gatedCall('fs/write_note', { path: 'deny.txt', content: 'x' }, { runId: 'r2', toolCallId: 't2' });
    const request = await waitPending('r2');
    await approve({ request_id: request.id, decisions: { t2: 'deny' }, feedback: 'write to notes/ instead' });
    expect(await flow).toEqual({ ran: false, feedback: 'write to notes/ instead', resolvedBy: 'human' });
    expect(writesTo('deny.txt')).toEqual([]);
  });

  it('edit: an invalid edit is rejected with 400 and changes nothing; a valid one runs with the edited args', async () => {
    const flow = gatedCall('fs/write_note', { path: 'edit.txt', content: 'orig' }, { runId: 'r3', toolCallId: 't3' });
    const request = await waitPending('r3');
    const bad = await approve({ request_id: request.id, decisions: { t3: { edit: { path: 'edit.txt' } } } });
    expect(bad.status).toBe(400);
    expect(broker.listPending('r3')).toHaveLength(1);
    await approve({ request_id: request.id, decisions: { t3: { edit: { path: 'edited.txt', content: 'changed' } } } });
    await flow;
    expect(writesTo('edit.txt')).toEqual([]);
    expect(writesTo('edited.txt')).toEqual([{ path: 'edited.txt', content: 'changed' }]);
  });

  it('two parallel steps waiting for approval are resolved in either order, independently', async () => {
    const a = gatedCall('fs/write_note', { path: 'pa.txt', content: 'a' }, { runId: 'r4', toolCallId: 'ta' });
    const b = gatedCall('fs/write_note', { path: 'pb.txt', content: 'b' }, { runId: 'r4', toolCallId: 'tb' });
    await expect.poll(() => broker.listPending('r4').length).toBe(2);
    const [ra, rb] = ['ta', 'tb'].map((id) =>
      broker.listPending('r4').find((r) => r.kind === 'tool' && r.toolCalls[0]!.toolCallId === id)!,
    );
    await approve({ request_id: rb!.id, decisions: { tb: 'accept' } });
    expect(await b).toMatchObject({ ran: true });
    expect(writesTo('pb.txt')).toHaveLength(1);
    expect(writesTo('pa.txt')).toHaveLength(0);
    expect(broker.listPending('r4').map((r) => r.id)).toEqual([ra!.id]);
    await approve({ request_id: ra!.id, decisions: { ta: 'deny' } });
    expect(await a).toMatchObject({ ran: false });
    expect(writesTo('pa.txt')).toHaveLength(0);
  });

  it('cancel while waiting: the approval is cancelled and no tool call is made', async () => {
    const controller = new AbortController();
    const flow = gatedCall(
      'fs/write_note',
      { path: 'cancel.txt', content: 'x' },
      { runId: 'r5', toolCallId: 't5', signal: controller.signal },
    );
    const request = await waitPending('r5');
    controller.abort();
    expect(await flow).toMatchObject({ ran: false, resolvedBy: 'cancelled' });
    expect(writesTo('cancel.txt')).toEqual([]);
    const late = await approve({ request_id: request.id, decisions: { t5: 'accept' } });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('already_resolved');
    expect(records.find((r) => r.id === request.id && r.resolvedBy)).toMatchObject({
      resolvedBy: 'cancelled',
      actor: 'system',
    });
  });

  it('timeout: the default (deny) applies, is recorded, and the tool does not run', async () => {
    const out = await gatedCall(
      'fs/write_note',
      { path: 'timeout.txt', content: 'x' },
      { runId: 'r6', toolCallId: 't6', timeoutMs: 50 },
    );
    expect(out).toMatchObject({
      ran: false,
      resolvedBy: 'timeout',
      feedback: expect.stringMatching(/default \(deny\)/),
    });
    expect(writesTo('timeout.txt')).toEqual([]);
    const recorded = records.filter((r) => r.runId === 'r6');
    expect(recorded.at(-1)).toMatchObject({ resolvedBy: 'timeout', decision: { decisions: { t6: { type: 'deny' } } } });
  });
});
