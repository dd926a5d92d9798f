/**
 * AG-UI adapter against the real engine over real HTTP, driven by @ag-ui/client's HttpAgent, whose
 * own verifier rejects any out-of-order stream (runAgent would throw).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventType,
  HttpAgent,
  parseProtoStream,
  runHttpRequest,
  type AgentSubscriber,
  type BaseEvent,
} from '@ag-ui/client';
import { AGUI_MEDIA_TYPE } from '@ag-ui/encoder';
import { lastValueFrom, toArray } from 'rxjs';
import { ASK_QUERY, ASKER, NOTE_QUERY, startRig, until, type Rig } from '../../../support/protocols/agui-rig.ts';
import { NOTER } from '../../../support/protocols/a2a-helpers.ts';
import { READ_QUERY, READER, STANDUP_REFERENCE, STANDUP_SOURCE } from '../../../support/protocols/citing.ts';
import { expectNumbered, expectUncited } from '../../../support/protocols/citing-expect.ts';
import { expectAdvice, expectVerdictData } from '../../../support/council-answer.ts';
import type { CouncilVerdict } from '../../../../src/graph/run/events.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ specialists: [NOTER, ASKER, READER] });
});
afterAll(async () => {
  await rig?.close();
});

function agentWith(text: string): HttpAgent {
  const agent = new HttpAgent({ url: `${rig.url}/ag-ui` });
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  return agent;
}

function recorder(extra: AgentSubscriber = {}): { events: BaseEvent[]; subscriber: AgentSubscriber } {
  const events: BaseEvent[] = [];
  return { events, subscriber: { ...extra, onEvent: ({ event }) => void events.push(event) } };
}

const types = (events: BaseEvent[]) => events.map((e) => e.type);
const ofType = <T extends BaseEvent>(events: BaseEvent[], type: EventType) =>
  events.filter((e) => e.type === type) as T[];

describe('POST /ag-ui', () => {
  it('streams a full orchestrated run that HttpAgent accepts, with plan state, steps and the answer', async () => {
    const agent = agentWith('Analyse the sales data trends and write a report about them');
    const { events, subscriber } = recorder();
    const runId = randomUUID();
    const result = await agent.runAgent({ runId }, subscriber);

    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: agent.threadId, runId });
    expect(events[1]!.type).toBe(EventType.STATE_SNAPSHOT);
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      threadId: agent.threadId,
      runId,
      outcome: { type: 'success' },
    });
    expect(types(events).filter((t) => t === EventType.RUN_FINISHED || t === EventType.RUN_ERROR)).toHaveLength(1);

    // L0 nodes as steps, balanced, in engine order.
    const started = ofType<{ stepName: string } & BaseEvent>(events, EventType.STEP_STARTED).map((e) => e.stepName);
    expect(started.slice(0, 3)).toEqual(['usage_guard', 'router', 'dispatcher']);
    expect(started).toContain('verifier');
    expect(ofType(events, EventType.STEP_FINISHED)).toHaveLength(started.length);

    // The answer: one message, no empty delta, equal to the engine's answer.
    const engineResult = await rig.parley.engine.get(runId)!.result;
    expect(engineResult.status).toBe('completed');
    const deltas = ofType<{ delta: string } & BaseEvent>(events, EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.length > 0)).toBe(true);
    expect(deltas.join('')).toBe(engineResult.answer);
    expect(result.newMessages.find((m) => m.role === 'assistant')?.content).toBe(engineResult.answer);

    // Plan and step status arrive as a snapshot then JSON Patch deltas the client applied.
    expect(ofType(events, EventType.STATE_DELTA).length).toBeGreaterThan(2);
    const state = agent.state as {
      parley: { runId: string; status: string; plan: { steps: { status: string }[] }; verification: { score: number } };
    };
    expect(state.parley.runId).toBe(runId);
    expect(state.parley.status).toBe('completed');
    expect(state.parley.plan.steps.length).toBeGreaterThan(0);
    expect(state.parley.plan.steps.every((s) => s.status === 'succeeded')).toBe(true);
    expect(state.parley.verification.score).toBe(0.9);

    // Verification and usage as CUSTOM events.
    const custom = ofType<{ name: string; value: unknown } & BaseEvent>(events, EventType.CUSTOM);
    expect(custom.find((e) => e.name === 'verification')?.value).toMatchObject({ score: 0.9, next: 'synthesize' });
    expect(custom.some((e) => e.name === 'usage')).toBe(true);
    expect(custom.some((e) => e.name === 'route_decided')).toBe(true);
    const finished = events.at(-1) as BaseEvent & { usage: { inputTokens: number }[] };
    expect(finished.usage[0]!.inputTokens).toBe(engineResult.usage.inputTokens);
  });

  it('streams a council run: council stages and the verdict as CUSTOM events, the answer as a message', async () => {
    const agent = agentWith('Should we migrate our database to Postgres this quarter?');
    const { events, subscriber } = recorder();
    const runId = randomUUID();
    await agent.runAgent({ runId, forwardedProps: { parley: { mode: 'council' } } }, subscriber);
    const stages = ofType<{ name: string; value: { stage: string; verdict?: CouncilVerdict } } & BaseEvent>(
      events,
      EventType.CUSTOM,
    )
      .filter((e) => e.name === 'council_stage')
      .map((e) => e.value);
    expect(stages.map((s) => s.stage)).toEqual(expect.arrayContaining(['advisors', 'reviews', 'verdict']));
    expect(stages.find((s) => s.stage === 'verdict')?.verdict?.recommendation).toEqual(expect.any(String));
    // The verdict (confidence, rankings) is CUSTOM data; the message is the advice.
    expectVerdictData(stages.find((s) => s.stage === 'verdict')?.verdict);
    const result = await rig.parley.engine.get(runId)!.result;
    expect(result.status).toBe('completed');
    const message = ofType<{ delta: string } & BaseEvent>(events, EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => e.delta)
      .join('');
    expect(message).toBe(result.answer);
    expectAdvice(message);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
  });

  it('encodes protobuf when the client accepts it, readable by the client SDK parser', async () => {
    const runId = randomUUID();
    const body = {
      threadId: randomUUID(),
      runId,
      messages: [{ id: '1', role: 'user', content: 'hello [[route:direct]]' }],
    };
    const http$ = runHttpRequest(() =>
      fetch(`${rig.url}/ag-ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE },
        body: JSON.stringify(body),
      }),
    );
    const events = await lastValueFrom(parseProtoStream(http$).pipe(toArray()));
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, runId });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, runId });
    expect(types(events)).toContain(EventType.TEXT_MESSAGE_CONTENT);

    // `*/*` (curl, generic HTTP clients) gets SSE, the default, not protobuf.
    const any = await fetch(`${rig.url}/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: '*/*' },
      body: JSON.stringify({ ...body, runId: randomUUID() }),
    });
    expect(any.headers.get('content-type')).toBe('text/event-stream');
    expect(await any.text()).toMatch(/^data: \{"type":"RUN_STARTED"/);
  });

  it('answers a bad RunAgentInput with 400 naming the field, and starts no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    const res = await fetch(`${rig.url}/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't', messages: [] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; field: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request', field: 'runId' });

    // Through the client too: a bad Parley option is named by its path.
    const agent = agentWith('hello');
    await expect(agent.runAgent({ forwardedProps: { parley: { mode: 'sideways' } } })).rejects.toThrow(
      /HTTP 400.*forwardedProps\.parley\.mode/,
    );
    // And a conversation with no user message.
    const empty = new HttpAgent({ url: `${rig.url}/ag-ui` });
    await expect(empty.runAgent()).rejects.toThrow(/HTTP 400.*"field":"messages"/);
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });

  it('sideband approval: CUSTOM approval_required while the stream stays open, resolved via POST /api/approve', async () => {
    const agent = agentWith(NOTE_QUERY);
    const runId = randomUUID();
    const approvals: { requestId: string; toolCalls: { toolCallId: string; tool: string }[] }[] = [];
    const { events, subscriber } = recorder({
      onCustomEvent: async ({ event }) => {
        if (event.name !== 'approval_required') return;
        const value = event.value as (typeof approvals)[number];
        approvals.push(value);
        const res = await fetch(`${rig.url}/api/approve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            request_id: value.requestId,
            decisions: { [value.toolCalls[0]!.toolCallId]: 'accept' },
          }),
        });
        expect(res.status).toBe(200);
      },
    });
    await agent.runAgent({ runId }, subscriber);

    expect(approvals).toHaveLength(1);
    expect(approvals[0]!.toolCalls[0]!.tool).toBe('fx/write_note');
    const toolCallId = approvals[0]!.toolCalls[0]!.toolCallId;
    const order = (pred: (e: BaseEvent) => boolean) => events.findIndex(pred);
    const started = order((e) => e.type === EventType.TOOL_CALL_START && e.toolCallId === toolCallId);
    const asked = order((e) => e.type === EventType.CUSTOM && e.name === 'approval_required');
    const resolved = order((e) => e.type === EventType.CUSTOM && e.name === 'approval_resolved');
    const result = order((e) => e.type === EventType.TOOL_CALL_RESULT && e.toolCallId === toolCallId);
    expect(started).toBeGreaterThan(-1);
    expect(started).toBeLessThan(asked);
    expect(asked).toBeLessThan(resolved);
    expect(resolved).toBeLessThan(result);
    expect(ofType<{ content: string } & BaseEvent>(events, EventType.TOOL_CALL_RESULT)[0]!.content).toMatch(
      /wrote 5 chars to agui.txt/,
    );
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(rig.fixture.state.writes).toContainEqual({ path: 'agui.txt', content: 'hello' });
  });

  it('interrupt → resume: RUN_FINISHED outcome interrupt while the run waits, then resume continues the same run', async () => {
    const agent = agentWith(NOTE_QUERY.replace('agui.txt', 'interrupt.txt'));
    const firstRunId = randomUUID();
    const first = recorder();
    await agent.runAgent({ runId: firstRunId, forwardedProps: { parley: { interrupts: true } } }, first.subscriber);

    const end = first.events.at(-1) as BaseEvent & {
      outcome: {
        type: string;
        interrupts: { id: string; reason: string; toolCallId: string; responseSchema: object; expiresAt: string }[];
      };
    };
    expect(end).toMatchObject({ type: EventType.RUN_FINISHED, runId: firstRunId, outcome: { type: 'interrupt' } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const interrupt = agent.pendingInterrupts[0]!;
    expect(interrupt).toMatchObject({ reason: 'tool_approval', responseSchema: { type: 'object' } });
    expect(Date.parse(interrupt.expiresAt!)).toBeGreaterThan(Date.now());
    expect(
      first.events.some((e) => e.type === EventType.TOOL_CALL_START && e.toolCallId === interrupt.toolCallId),
    ).toBe(true);
    // The engine run is suspended on the broker request, not finished.
    expect(rig.parley.approvals.listPending(firstRunId)).toHaveLength(1);
    const handle = rig.parley.engine.get(firstRunId)!;
    const settled = await Promise.race([
      handle.result.then(() => 'finished'),
      new Promise((r) => setTimeout(() => r('waiting'), 100)),
    ]);
    expect(settled).toBe('waiting');
    expect(rig.fixture.state.writes.some((w) => w.path === 'interrupt.txt')).toBe(false);

    const secondRunId = randomUUID();
    const second = recorder();
    await agent.runAgent(
      {
        runId: secondRunId,
        resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'accept' } }],
      },
      second.subscriber,
    );
    expect(second.events[0]).toMatchObject({
      type: EventType.RUN_STARTED,
      runId: secondRunId,
      metadata: { parleyRunId: firstRunId, resumed: true },
    });
    expect(second.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      runId: secondRunId,
      outcome: { type: 'success' },
    });
    expect(
      second.events.some((e) => e.type === EventType.TOOL_CALL_RESULT && e.toolCallId === interrupt.toolCallId),
    ).toBe(true);
    expect(agent.pendingInterrupts).toHaveLength(0);
    const result = await handle.result;
    expect(result.status).toBe('completed');
    expect(rig.fixture.state.writes).toContainEqual({ path: 'interrupt.txt', content: 'hello' });
    expect(
      ofType<{ delta: string } & BaseEvent>(second.events, EventType.TEXT_MESSAGE_CONTENT)
        .map((e) => e.delta)
        .join(''),
    ).toBe(result.answer);
    // Usage on the resumed stream counts only the calls made after the interrupt.
    const firstUsage = first.events
      .filter((e) => e.type === EventType.CUSTOM && e.name === 'usage')
      .at(-1) as BaseEvent & { value: { inputTokens: number } };
    const resumedEnd = second.events.at(-1) as BaseEvent & { usage: { inputTokens: number }[] };
    expect(resumedEnd.usage[0]!.inputTokens).toBe(result.usage.inputTokens - firstUsage.value.inputTokens);
    expect((end as unknown as { usage: { inputTokens: number }[] }).usage[0]!.inputTokens).toBe(
      firstUsage.value.inputTokens,
    );
    // No event of the first stream is sent again.
    expect(second.events.some((e) => e.type === EventType.CUSTOM && e.name === 'approval_required')).toBe(false);
  });

  it('an MCP elicitation becomes an interrupt with its schema; the resume payload is the answer', async () => {
    const agent = agentWith(ASK_QUERY);
    const runId = randomUUID();
    await agent.runAgent({ runId, forwardedProps: { parley: { interrupts: true } } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const interrupt = agent.pendingInterrupts[0]!;
    expect(interrupt).toMatchObject({
      reason: 'elicitation',
      message: 'Which city should I use?',
      responseSchema: { required: ['city'] },
    });
    const { events, subscriber } = recorder();
    await agent.runAgent(
      { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { city: 'Lyon' } }] },
      subscriber,
    );
    const results = ofType<{ content: string } & BaseEvent>(events, EventType.TOOL_CALL_RESULT).map((e) => e.content);
    expect(results).toContain('city: Lyon');
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('completed');
  });

  it('a cancelled interrupt denies the tool call and the run still completes', async () => {
    const agent = agentWith(NOTE_QUERY.replace('agui.txt', 'denied.txt'));
    const runId = randomUUID();
    await agent.runAgent({ runId, forwardedProps: { parley: { interrupts: true } } });
    const interrupt = agent.pendingInterrupts[0]!;
    const { events, subscriber } = recorder();
    await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: 'cancelled' }] }, subscriber);
    const result = ofType<{ content: string; toolCallId: string } & BaseEvent>(events, EventType.TOOL_CALL_RESULT).find(
      (e) => e.toolCallId === interrupt.toolCallId,
    );
    expect(result?.content).toMatch(/not approved|denied/);
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('completed');
    expect(rig.fixture.state.writes.some((w) => w.path === 'denied.txt')).toBe(false);
  });

  it('a resume naming no interrupted run answers 409 and changes nothing', async () => {
    const res = await fetch(`${rig.url}/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: randomUUID(),
        runId: randomUUID(),
        messages: [],
        resume: [{ interruptId: 'nope::x', status: 'resolved', payload: 'accept' }],
      }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe('resume');
  });

  it('a client disconnect cancels the run', async () => {
    const agent = agentWith(NOTE_QUERY.replace('agui.txt', 'gone.txt'));
    const runId = randomUUID();
    const running = agent.runAgent(
      { runId },
      { onCustomEvent: ({ event }) => void (event.name === 'approval_required' && agent.abortRun()) },
    );
    await running.catch(() => undefined);
    const result = await rig.parley.engine.get(runId)!.result;
    expect(result.status).toBe('cancelled');
    expect(rig.parley.approvals.listPending(runId)).toHaveLength(0);
  });

  it('continueOnDisconnect keeps the run going after the client leaves', async () => {
    const agent = agentWith(NOTE_QUERY.replace('agui.txt', 'stays.txt'));
    const runId = randomUUID();
    const running = agent.runAgent(
      { runId, forwardedProps: { parley: { continueOnDisconnect: true } } },
      { onCustomEvent: ({ event }) => void (event.name === 'approval_required' && agent.abortRun()) },
    );
    await running.catch(() => undefined);
    const [pending] = await until(() => {
      const list = rig.parley.approvals.listPending(runId);
      return list.length ? list : undefined;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(rig.parley.approvals.listPending(runId)).toHaveLength(1);
    if (pending!.kind !== 'tool') throw new Error('expected a tool approval');
    rig.parley.approvals.resolve(
      pending!.id,
      { kind: 'tool', decisions: { [pending!.toolCalls[0]!.toolCallId]: { type: 'accept' } } },
      'test',
    );
    expect((await rig.parley.engine.get(runId)!.result).status).toBe('completed');
    expect(rig.fixture.state.writes).toContainEqual({ path: 'stays.txt', content: 'hello' });
  });
});

describe('citations: forwardedProps.parley.citations', () => {
  type Finished = BaseEvent & { result: Record<string, unknown> };

  async function readNotes(parley: Record<string, unknown>) {
    const agent = agentWith(READ_QUERY);
    const { events, subscriber } = recorder();
    const result = await agent.runAgent({ forwardedProps: { parley } }, subscriber);
    // The answer's text message (the assistant's tool-call messages come before it).
    const start = ofType<{ messageId: string } & BaseEvent>(events, EventType.TEXT_MESSAGE_START);
    expect(start).toHaveLength(1);
    const said = result.newMessages.find((m) => m.id === start[0]!.messageId)?.content;
    const finished = events.at(-1) as Finished;
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(typeof said).toBe('string');
    expect(finished.result.answer).toBe(said);
    return { said: said as string, result: finished.result };
  }

  it('"numbered": the message cites [1] and lists standup.md; RUN_FINISHED.result carries the references', async () => {
    const { said, result } = await readNotes({ citations: 'numbered' });
    expectNumbered(said);
    expect(result).toMatchObject({ status: 'completed', sources: [STANDUP_SOURCE] });
    expect(result.references).toEqual([STANDUP_REFERENCE]);
  });

  it('without it: no [n] in the message; the file read still comes as data, with no references', async () => {
    const { said, result } = await readNotes({});
    expectUncited(said);
    expect(result).toMatchObject({ status: 'completed', sources: [STANDUP_SOURCE] });
    expect(result.references).toBeUndefined();
  });

  it('an unknown style is a 400 naming forwardedProps.parley.citations, and starts no run', async () => {
    const before = rig.parley.engine.retainedRuns;
    await expect(
      agentWith(READ_QUERY).runAgent({ forwardedProps: { parley: { citations: 'footnotes' } } }),
    ).rejects.toThrow(/HTTP 400.*forwardedProps\.parley\.citations/);
    expect(rig.parley.engine.retainedRuns).toBe(before);
  });
});
