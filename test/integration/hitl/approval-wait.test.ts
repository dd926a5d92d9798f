/**
 * The time a human takes does not count against the step or tool timeout (issue #12 §3): with the
 * defaults' proportions scaled down (step 120 s : approval 300 s → 600 ms : 1500 ms), an unanswered
 * approval is asked once, under one id, settled at the approval timeout with the configured default,
 * and the run finishes; a human answering late gets "already resolved". Real engine, scripted model,
 * the fixture MCP server over HTTP, POST /api/approve over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { ASK_QUERY, NOTE_QUERY, startRig, type Rig } from '../../support/protocols/agui-rig.ts';

const STEP_TIMEOUT_MS = 600;
const APPROVAL_TIMEOUT_MS = 1500;

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function start(defaultDecision: 'deny' | 'accept'): Promise<Rig> {
  rig = await startRig({
    config: {
      engine: { stepTimeoutMs: STEP_TIMEOUT_MS },
      tools: { timeoutMs: STEP_TIMEOUT_MS },
      approvals: { timeoutMs: APPROVAL_TIMEOUT_MS, defaultDecision },
    },
  });
  // Connect the fixture server now: its cold start must not eat into the short step timeout.
  await rig.parley.tools.listTools();
  return rig;
}

async function runToEnd(r: Rig, query: string): Promise<{ events: GraphEvent[]; status: string }> {
  const handle = r.parley.engine.start({ query, protocol: 'test' });
  const events: GraphEvent[] = [];
  for await (const e of handle.events()) events.push(e);
  return { events, status: (await handle.result).status };
}

const of = <T extends GraphEvent['type']>(events: GraphEvent[], type: T) =>
  events.filter((e) => e.type === type) as GraphEventOf<T>[];

function lateAnswer(r: Rig, requestId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${r.url}/api/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ request_id: requestId, ...body }),
  });
}

describe('an unanswered approval outlives the step timeout', () => {
  it('deny by default: one request, one id, denied at the approval timeout, the run completes, a late answer is "already resolved"', async () => {
    const r = await start('deny');
    const { events, status } = await runToEnd(r, NOTE_QUERY.replace('agui.txt', 'wait-deny.txt'));
    expect(status).toBe('completed');

    const asked = of(events, 'approval.requested');
    expect(asked).toHaveLength(1);
    const resolved = of(events, 'approval.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.outcome).toMatchObject({
      requestId: asked[0]!.request.id,
      resolvedBy: 'timeout',
      actor: 'system',
    });
    const waited = Date.parse(resolved[0]!.at) - Date.parse(asked[0]!.at);
    expect(waited).toBeGreaterThanOrEqual(APPROVAL_TIMEOUT_MS - 20);

    // The step was never cancelled by its own timeout, nor retried.
    expect(of(events, 'step.started')).toHaveLength(1);
    expect(of(events, 'step.finished').map((s) => s.status)).toEqual(['succeeded']);
    const tool = of(events, 'tool.finished')[0]!;
    expect(tool.status).toBe('denied');
    expect(tool.error).toMatch(/denied by timeout/);
    expect(r.fixture.state.writes.some((w) => w.path === 'wait-deny.txt')).toBe(false);

    const late = await lateAnswer(r, asked[0]!.request.id, {
      decisions: { [asked[0]!.request.kind === 'tool' ? asked[0]!.request.toolCalls[0]!.toolCallId : 'x']: 'accept' },
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('already_resolved');
  });

  it('accept by default (PARLEY_APPROVAL_DEFAULT=accept): the tool runs at the approval timeout', async () => {
    const r = await start('accept');
    const { events, status } = await runToEnd(r, NOTE_QUERY.replace('agui.txt', 'wait-accept.txt'));
    expect(status).toBe('completed');
    expect(of(events, 'approval.requested')).toHaveLength(1);
    expect(of(events, 'approval.resolved')[0]!.outcome.resolvedBy).toBe('timeout');
    expect(of(events, 'tool.finished')[0]!.status).toBe('ok');
    expect(r.fixture.state.writes).toContainEqual({ path: 'wait-accept.txt', content: 'hello' });
  });

  it("an elicitation inside a tool call pauses the step's and the tool's clocks alike", async () => {
    const r = await start('deny');
    const { events, status } = await runToEnd(r, ASK_QUERY);
    expect(status).toBe('completed');
    const asked = of(events, 'approval.requested');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.request.kind).toBe('elicitation');
    expect(of(events, 'approval.resolved')[0]!.outcome).toMatchObject({
      resolvedBy: 'timeout',
      decision: { kind: 'elicitation', action: 'cancel' },
    });
    expect(of(events, 'step.started')).toHaveLength(1);
    expect(of(events, 'step.finished').map((s) => s.status)).toEqual(['succeeded']);
  });
});
