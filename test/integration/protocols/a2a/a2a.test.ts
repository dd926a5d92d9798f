/**
 * A2A over real HTTP with the @a2a-js/sdk client against the real engine (scripted model, Kuzu in
 * memory, a real MCP fixture server whose write tool needs approval).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import {
  NOTE_QUERY,
  approvalPart,
  collect,
  data,
  jsonRpc,
  send,
  startA2ARig,
  stateOf,
  taskIdOf,
  text,
  type A2ARig,
} from '../../../support/protocols/a2a-helpers.ts';
import { expectAdvice, expectVerdictData } from '../../../support/council-answer.ts';
import type { CouncilVerdict } from '../../../../src/graph/run/events.ts';

let rig: A2ARig;
beforeAll(async () => {
  rig = await startA2ARig();
});
afterAll(async () => {
  await rig?.close();
});

const answerOf = (task: Task) => {
  const part = task.artifacts.find((a) => a.artifactId === 'answer')?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
};
const getTask = (id: string) => rig.client.getTask({ tenant: '', id });
const returnImmediately = {
  acceptedOutputModes: [],
  taskPushNotificationConfig: undefined,
  historyLength: undefined,
  returnImmediately: true,
};

async function untilInputRequired(query: string) {
  const events = await collect(rig.client.sendMessageStream(send([text(query)])));
  expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return { events, taskId: taskIdOf(events), approval: approvalPart(events) };
}

describe('agent card', () => {
  it('serves a v1.0 card with skills from the registry and a JSON-RPC interface for 1.0 and 0.3', async () => {
    const card = await rig.client.getAgentCard();
    expect(card.name).toBe('Parley');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((s) => s.id)).toEqual(['noter']);
    const jsonrpc = card.supportedInterfaces.filter((i) => i.protocolBinding === 'JSONRPC');
    expect(jsonrpc.map((i) => i.protocolVersion).sort()).toEqual(['0.3', '1.0']);
    expect(new Set(jsonrpc.map((i) => i.url))).toEqual(new Set([`${rig.server.url}/a2a`]));
  });

  it('serves the v0.3 shape to clients that send no A2A-Version', async () => {
    const legacy = (await (await fetch(`${rig.server.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(legacy).toMatchObject({
      name: 'Parley',
      url: `${rig.server.url}/a2a`,
      protocolVersion: '0.3',
      preferredTransport: 'JSONRPC',
    });
    expect((legacy.skills as { id: string }[]).map((s) => s.id)).toEqual(['noter']);
  });
});

describe('running tasks', () => {
  it('SendMessage runs the graph and returns the completed task with the answer as an artifact', async () => {
    const task = (await rig.client.sendMessage(send([text('hello there [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBeTruthy();
    expect(task.metadata?.parley?.runId).toBe(task.id);
    expect((await rig.parley.engine.get(task.id)?.result)?.status).toBe('completed');
    expect(rig.parley.engine.get(task.id)?.threadId).toBe(task.contextId);
  });

  it('SendStreamingMessage streams status updates, step artifacts and the answer, then COMPLETED', async () => {
    const events = await collect(
      rig.client.sendMessageStream(send([text('noter: keep notes on two things [[route:plan]] [[steps:2]]')])),
    );
    expect(events[0]?.payload?.$case).toBe('task');
    expect(stateOf(events[0]!)).toBe(TaskState.TASK_STATE_SUBMITTED);
    const kinds = events.map((e) => e.payload?.$case);
    const artifacts = events.flatMap((e) =>
      e.payload?.$case === 'artifactUpdate' ? [e.payload.value.artifact!.artifactId] : [],
    );
    expect(artifacts.filter((id) => id.startsWith('step-'))).toHaveLength(2);
    expect(artifacts.at(-1)).toBe('answer');
    expect(kinds.filter((k) => k === 'statusUpdate').length).toBeGreaterThan(2);
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    // Every state between the first and the last was WORKING.
    expect(
      new Set(
        events
          .slice(1, -1)
          .map(stateOf)
          .filter((s) => s !== undefined),
      ),
    ).toEqual(new Set([TaskState.TASK_STATE_WORKING]));
    const stored = await getTask(taskIdOf(events));
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(stored)).toBeTruthy();
  });

  it('a second message in the same context is a new task on the same thread, listed with ListTasks', async () => {
    const first = (await rig.client.sendMessage(send([text('first question [[route:direct]]')]))) as Task;
    const second = (await rig.client.sendMessage(
      send([text('and a follow-up [[route:direct]]')], { contextId: first.contextId }),
    )) as Task;
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(rig.parley.engine.get(second.id)?.threadId).toBe(first.contextId);
    const listed = await rig.client.listTasks({
      tenant: '',
      contextId: first.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('metadata.mode "council" convenes the council; the verdict comes as a data artifact', async () => {
    const task = (await rig.client.sendMessage(
      send([text('Should we rewrite the billing service?')], {}, { mode: 'council' }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const verdict = task.artifacts.find((a) => a.artifactId === 'council-verdict')?.parts[0]?.content;
    expect(verdict?.$case).toBe('data');
    expect(verdict?.$case === 'data' && typeof verdict.value.recommendation).toBe('string');
    // The answer artifact is the advice; the verdict with its confidence and rankings stays in the data part.
    expectAdvice(answerOf(task));
    expectVerdictData(verdict?.$case === 'data' ? (verdict.value as Partial<CouncilVerdict>) : undefined);
  });

  it('a graph failure is a FAILED task carrying the reason', async () => {
    const task = (await rig.client.sendMessage(send([text('this will break [[fault:500]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const reason = task.status?.message?.parts[0]?.content;
    expect(reason?.$case === 'text' && reason.value.length > 0).toBe(true);
    expect(answerOf(task)).toBeUndefined();
  });
});

describe('approvals', () => {
  it('input-required carries the request; a message with the decision resumes the same task', async () => {
    const { taskId, approval } = await untilInputRequired(NOTE_QUERY);
    const [pending] = approval.pending;
    expect(pending?.toolCalls.map((c) => c.tool)).toEqual(['fx/write_note']);
    expect(rig.fixture.state.writes.filter((w) => w.path === 'a2a.txt')).toHaveLength(0);

    // A wrong decision is refused with invalid params and changes nothing.
    await expect(
      rig.client.sendMessage(
        send([data({ request_id: pending!.request_id, decisions: { nope: 'accept' } })], { taskId }),
      ),
    ).rejects.toThrow(/unknown tool calls/);
    expect((await getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(rig.parley.approvals.listPending(taskId)).toHaveLength(1);

    const decisions = Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'accept']));
    const resumed = await collect(
      rig.client.sendMessageStream(send([data({ request_id: pending!.request_id, decisions })], { taskId })),
    );
    expect(taskIdOf(resumed)).toBe(taskId);
    expect(stateOf(resumed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(rig.fixture.state.writes.filter((w) => w.path === 'a2a.txt')).toHaveLength(1);
  });

  it('input-required can be resolved by anyone through POST /api/approve (same broker)', async () => {
    const before = rig.fixture.state.writes.length;
    const { taskId, approval } = await untilInputRequired(NOTE_QUERY);
    const [pending] = approval.pending;
    const res = await fetch(`${rig.server.url}/api/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        request_id: pending!.request_id,
        decisions: Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'deny'])),
      }),
    });
    expect(res.status).toBe(200);
    // Nobody is connected to the task: the run pump keeps the stored task current.
    await expect
      .poll(async () => (await getTask(taskId)).status?.state, { timeout: 15_000 })
      .toBe(TaskState.TASK_STATE_COMPLETED);
    expect(rig.fixture.state.writes.length).toBe(before);
  });
});

describe('cancel and subscribe', () => {
  it('CancelTask aborts a running task', async () => {
    const task = (await rig.client.sendMessage({
      ...send([text('this never answers [[fault:hang]]')]),
      configuration: returnImmediately,
    })) as Task;
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    const cancelled = await rig.client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await rig.parley.engine.get(task.id)?.result)?.status).toBe('cancelled');
  });

  it('CancelTask aborts a task waiting for input, and its approval', async () => {
    const { taskId } = await untilInputRequired(NOTE_QUERY);
    expect(rig.parley.approvals.listPending(taskId)).toHaveLength(1);
    const cancelled = await rig.client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(rig.parley.approvals.listPending(taskId)).toHaveLength(0);
    expect((await rig.parley.engine.get(taskId)?.result)?.status).toBe('cancelled');
    await expect(rig.client.sendMessage(send([data({ decisions: {} })], { taskId }))).rejects.toThrow();
  });

  it('SubscribeToTask re-attaches after the client disconnected, and follows the task to the end', async () => {
    const aborted = new AbortController();
    let taskId = '';
    await expect(
      (async () => {
        for await (const e of rig.client.sendMessageStream(send([text(NOTE_QUERY)]), { signal: aborted.signal })) {
          if (e.payload?.$case === 'task') {
            taskId = e.payload.value.id;
            aborted.abort();
          }
        }
      })(),
    ).rejects.toThrow();
    expect(taskId).not.toBe('');

    const seen: TaskState[] = [];
    for await (const e of rig.client.resubscribeTask({ tenant: '', id: taskId })) {
      const state = stateOf(e);
      if (state !== undefined) seen.push(state);
      if (seen.length === 1) expect(e.payload?.$case).toBe('task');
      if (state === TaskState.TASK_STATE_INPUT_REQUIRED) break;
    }
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    // Subscribe again while it waits; its first event (the snapshot) means it is attached. Then approve.
    const sub = rig.client.resubscribeTask({ tenant: '', id: taskId })[Symbol.asyncIterator]();
    const snapshot = await sub.next();
    expect(snapshot.value?.payload?.$case).toBe('task');
    expect(stateOf(snapshot.value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const request = rig.parley.approvals.listPending(taskId)[0]!;
    const decisions =
      request.kind === 'tool'
        ? Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, { type: 'accept' as const }]))
        : {};
    expect((await rig.parley.approvals.resolve(request.id, { kind: 'tool', decisions }, 'test')).ok).toBe(true);
    const rest: TaskState[] = [];
    for (let next = await sub.next(); !next.done; next = await sub.next()) {
      const state = stateOf(next.value);
      if (state !== undefined) rest.push(state);
    }
    expect(rest[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(rest.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('keeping streams open', () => {
  it('an idle stream gets SSE comment heartbeats until the task ends', async () => {
    const task = (await rig.client.sendMessage({
      ...send([text('this never answers either [[fault:hang]]')]),
      configuration: returnImmediately,
    })) as Task;
    const res = await fetch(`${rig.server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes(': keep-alive')) seen += (await reader.read()).value ?? '';
    expect(seen.startsWith('data: ')).toBe(true);
    await rig.client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += r.value;
    expect(seen).toContain('TASK_STATE_CANCELED');
  });
});

describe('v0.3 clients', () => {
  it('a v0.3 client (SDK compat transport, v0.3 card) sends a message and gets the completed task', async () => {
    const legacyCard = await (await fetch(`${rig.server.url}/.well-known/agent-card.json`)).json();
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
    });
    const client = await factory.createFromAgentCard(parseLegacyAgentCard(legacyCard));
    expect(client.protocolVersion).toBe('0.3');
    const task = (await client.sendMessage(send([text('hello from an older peer [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBeTruthy();
  });

  it('raw v0.3 JSON-RPC (message/send, tasks/get) works without an A2A-Version header', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 7,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm-raw',
          role: 'user',
          parts: [{ kind: 'text', text: 'raw v0.3 [[route:direct]]' }],
        },
      },
    };
    const res = await fetch(`${rig.server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = (await res.json()) as { id: number; result: { kind: string; id: string; status: { state: string } } };
    expect(reply).toMatchObject({ id: 7, result: { kind: 'task', status: { state: 'completed' } } });
    const got = await fetch(`${rig.server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: reply.result.id } }),
    });
    expect(await got.json()).toMatchObject({ id: 8, result: { kind: 'task', id: reply.result.id } });
  });
});

describe('malformed JSON-RPC', () => {
  const listAll = async () =>
    (
      await rig.client.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 100,
        pageToken: '',
        statusTimestampAfter: undefined,
      })
    ).tasks.length;

  it('answers parse error, invalid request, unknown method and invalid params in JSON-RPC shape, creating nothing', async () => {
    const before = await listAll();
    const parse = await jsonRpc(rig.server.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(parse.body.error?.code).toBe(-32700);
    expect(parse.body.id).toBeNull();

    for (const version of ['1.0', '0.3']) {
      const invalid = await jsonRpc(
        rig.server.url,
        JSON.stringify({ jsonrpc: '1.0', id: 2, method: 'GetTask' }),
        version,
      );
      expect(invalid.body).toMatchObject({ id: 2, error: { code: -32600 } });
      const batch = await jsonRpc(rig.server.url, '[]', version);
      expect(batch.body.error?.code).toBe(-32600);
    }

    const unknown = await jsonRpc(
      rig.server.url,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'DoSomethingElse', params: {} }),
    );
    expect(unknown.body).toMatchObject({ id: 3, error: { code: -32601 } });

    const arrayParams = await jsonRpc(
      rig.server.url,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: [1] }),
    );
    expect(arrayParams.body).toMatchObject({ id: 4, error: { code: -32602 } });
    const noText = await jsonRpc(
      rig.server.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'SendMessage',
        params: { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ data: { a: 1 } }] } },
      }),
    );
    expect(noText.body).toMatchObject({ id: 5, error: { code: -32602 } });
    const badMode = await jsonRpc(
      rig.server.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'SendMessage',
        params: {
          message: { messageId: 'y', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
          metadata: { mode: 'turbo' },
        },
      }),
    );
    expect(badMode.body).toMatchObject({ id: 6, error: { code: -32602 } });
    expect(badMode.body.error?.message).toMatch(/mode/);

    for (const r of [parse, unknown, arrayParams, noText, badMode]) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
    expect(await listAll()).toBe(before);
  });

  it('refuses a non-JSON content type', async () => {
    const res = await fetch(`${rig.server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'A2A-Version': '1.0' },
      body: 'hi',
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32005);
  });
});
