/**
 * A2A input validation at the edge, v1.0 and v0.3: wrongly typed params get -32602 with a plain
 * message naming the field; an invalid role or a non-string text part is refused; a message with no
 * part Parley can read gets -32005; POST /a2a/ (trailing slash) is /a2a. Through the @a2a-js/sdk
 * client where it can send the case, raw JSON-RPC over HTTP where it cannot. Nothing bad may start a run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type AgentCard, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import {
  NOTE_QUERY,
  collect,
  send,
  startA2ARig,
  stateOf,
  taskIdOf,
  text,
  type A2ARig,
} from '../../../support/protocols/a2a-helpers.ts';

let rig: A2ARig;
beforeAll(async () => {
  rig = await startA2ARig();
});
afterAll(async () => {
  await rig?.close();
});

type Reply = {
  status: number;
  contentType: string | null;
  body: { id?: unknown; error?: { code: number; message: string }; result?: Record<string, unknown> };
};

/** One JSON-RPC call over real HTTP; v0.3 sends no A2A-Version header, as v0.3 clients do. */
async function call(method: string, params: unknown, version: '1.0' | '0.3', path = '/a2a'): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (version === '1.0') headers['A2A-Version'] = '1.0';
  const res = await fetch(`${rig.server.url}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 41, method, params }),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: (await res.json()) as Reply['body'],
  };
}

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

/** What a refused request must not have done: no task, no run, no model call. */
async function nothingStarted(run: () => Promise<void>) {
  const tasks = await listAll();
  const runs = rig.parley.engine.retainedRuns;
  const modelCalls = rig.parley.scripted.requests.length;
  await run();
  expect(await listAll()).toBe(tasks);
  expect(rig.parley.engine.retainedRuns).toBe(runs);
  expect(rig.parley.scripted.requests.length).toBe(modelCalls);
}

/** A plain message: no JavaScript internals, no stack frame, no file path. */
function expectPlain(message: string | undefined) {
  expect(message).toBeTruthy();
  expect(message).not.toMatch(
    /is not a function|undefined is not|Cannot read propert|TypeError|\bat .*:\d+|node_modules|\/src\/|\.ts\b|\.js\b/,
  );
}

function expectRefused(reply: Reply, code: number, field: RegExp) {
  expect(reply.status).toBe(200);
  expect(reply.body.id).toBe(41);
  expect(reply.body.result).toBeUndefined();
  expect(reply.body.error?.code).toBe(code);
  expect(reply.body.error?.message).toMatch(field);
  expectPlain(reply.body.error?.message);
}

const msg03 = (over: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: 'm-03',
  role: 'user',
  parts: [{ kind: 'text', text: 'hello [[route:direct]]' }],
  ...over,
});
const msg10 = (over: Record<string, unknown> = {}) => ({
  messageId: 'm-10',
  role: 'ROLE_USER',
  parts: [{ text: 'hello [[route:direct]]' }],
  ...over,
});

describe('wrongly typed params get -32602 naming the field', () => {
  const v03: [string, unknown, RegExp][] = [
    ['tasks/get', { id: 5 }, /\bid\b/],
    ['tasks/get', { id: 'some-task', historyLength: 'all' }, /historyLength/],
    ['tasks/cancel', { id: {} }, /\bid\b/],
    ['tasks/resubscribe', { id: 3 }, /\bid\b/],
    ['message/send', { message: msg03({ taskId: 5 }) }, /message\.taskId/],
    ['message/send', { message: msg03({ contextId: ['c'] }) }, /message\.contextId/],
    ['message/send', { message: msg03(), configuration: 'blocking' }, /configuration/],
    ['message/send', { message: msg03(), metadata: 'x' }, /metadata/],
    ['message/stream', { message: msg03({ referenceTaskIds: 'abc' }) }, /message\.referenceTaskIds/],
    ['tasks/pushNotificationConfig/get', { id: 5 }, /\bid\b/],
  ];
  it.each(v03)('v0.3 %s %j', async (method, params, field) => {
    await nothingStarted(async () => expectRefused(await call(method, params, '0.3'), -32602, field));
  });

  const v10: [string, unknown, RegExp][] = [
    ['GetTask', { id: 5 }, /\bid\b/],
    ['GetTask', { id: 'some-task', historyLength: 'all' }, /historyLength/],
    ['ListTasks', { contextId: 5 }, /contextId/],
    ['ListTasks', { includeArtifacts: 'yes' }, /includeArtifacts/],
    ['CancelTask', { id: 7 }, /\bid\b/],
    ['SubscribeToTask', { id: 1 }, /\bid\b/],
    ['SendMessage', { message: msg10({ taskId: 7 }) }, /message\.taskId/],
    ['SendMessage', { message: msg10(), metadata: 'x' }, /metadata/],
    [
      'SendMessage',
      { message: msg10(), configuration: { returnImmediately: 'no' } },
      /configuration\.returnImmediately/,
    ],
    ['SendMessage', { message: 'hello' }, /message: .*object/],
    ['SendMessage', { message: msg10({ parts: { text: 'hi' } }) }, /message\.parts/],
    ['SendStreamingMessage', { message: msg10({ messageId: 12 }) }, /message\.messageId/],
    ['GetTaskPushNotificationConfig', { taskId: 5, id: 'p' }, /taskId/],
  ];
  it.each(v10)('v1.0 %s %j', async (method, params, field) => {
    await nothingStarted(async () => expectRefused(await call(method, params, '1.0'), -32602, field));
  });

  it('keeps -32601 for unknown methods and serves well-typed snake_case ProtoJSON fields (v1.0)', async () => {
    expectRefused(await call('tasks/list', {}, '0.3'), -32601, /tasks\/list/);
    const task = (await rig.client.sendMessage(send([text('snake case follows [[route:direct]]')]))) as Task;
    const got = await call('GetTask', { id: task.id, history_length: 1 }, '1.0');
    expect(got.body.error).toBeUndefined();
    expect(got.body.result).toMatchObject({ id: task.id });
    const wrong = await call('GetTask', { id: task.id, history_length: 'one' }, '1.0');
    expectRefused(wrong, -32602, /historyLength/);
  });
});

describe('roles and text parts', () => {
  it('the SDK client sending ROLE_UNSPECIFIED is refused with -32602, nothing runs', async () => {
    const request = send([text('who am I [[route:direct]]')]);
    request.message!.role = Role.ROLE_UNSPECIFIED;
    await nothingStarted(async () => {
      const err = await rig.client.sendMessage(request).then(
        () => undefined,
        (e: unknown) => e as { envelopeCode?: number; message: string },
      );
      expect(err?.envelopeCode).toBe(-32602);
      expect(err?.message).toMatch(/message\.role/);
      expectPlain(err?.message);
    });
  });

  it('an invalid role is refused in both versions, streaming included', async () => {
    await nothingStarted(async () => {
      expectRefused(
        await call('SendMessage', { message: msg10({ role: 'ROLE_SYSTEM' }) }, '1.0'),
        -32602,
        /message\.role/,
      );
      expectRefused(await call('SendMessage', { message: msg10({ role: 'user' }) }, '1.0'), -32602, /message\.role/);
      const streamed = await call('SendStreamingMessage', { message: msg10({ role: 'ROLE_SYSTEM' }) }, '1.0');
      expect(streamed.contentType).toMatch(/application\/json/);
      expectRefused(streamed, -32602, /message\.role/);
      expectRefused(await call('message/send', { message: msg03({ role: 'system' }) }, '0.3'), -32602, /message\.role/);
      expectRefused(
        await call('message/stream', { message: msg03({ role: 'ROLE_USER' }) }, '0.3'),
        -32602,
        /message\.role/,
      );
    });
  });

  it('a non-string text part is refused in both versions', async () => {
    await nothingStarted(async () => {
      expectRefused(
        await call('message/send', { message: msg03({ parts: [{ kind: 'text', text: 42 }] }) }, '0.3'),
        -32602,
        /message\.parts\[0\]\.text/,
      );
      expectRefused(
        await call('message/stream', { message: msg03({ parts: [{ kind: 'text', text: { q: 'hi' } }] }) }, '0.3'),
        -32602,
        /message\.parts\[0\]\.text/,
      );
      expectRefused(
        await call('SendMessage', { message: msg10({ parts: [{ text: 42 }] }) }, '1.0'),
        -32602,
        /message\.parts\[0\]\.text/,
      );
      expectRefused(
        await call('SendStreamingMessage', { message: msg10({ parts: [{ text: ['hi'] }] }) }, '1.0'),
        -32602,
        /message\.parts\[0\]\.text/,
      );
    });
  });
});

describe('a message with no part Parley can read gets -32005 ContentTypeNotSupported', () => {
  const image: Part = {
    content: { $case: 'url', value: 'https://example.com/cat.png' },
    metadata: undefined,
    filename: 'cat.png',
    mediaType: 'image/png',
  };
  const pdf: Part = {
    content: { $case: 'raw', value: Buffer.from('%PDF-1.7') },
    metadata: undefined,
    filename: 'doc.pdf',
    mediaType: 'application/pdf',
  };

  it('v1.0 SDK client: only a file part', async () => {
    await nothingStarted(async () => {
      const err = await rig.client.sendMessage(send([image])).then(
        () => undefined,
        (e: unknown) => e as { envelopeCode?: number; message: string },
      );
      expect(err?.envelopeCode).toBe(-32005);
      expect(err?.message).toMatch(/text\/plain/);
      expect(err?.message).toMatch(/image\/png/);
      expectPlain(err?.message);
    });
    // A text part next to the file part is still a question: the text runs.
    const task = (await rig.client.sendMessage(send([image, text('describe it anyway [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('v0.3 SDK client (compat transport): only a file part, also streaming', async () => {
    const legacyCard = await (await fetch(`${rig.server.url}/.well-known/agent-card.json`)).json();
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
    });
    const client = await factory.createFromAgentCard(parseLegacyAgentCard(legacyCard));
    expect(client.protocolVersion).toBe('0.3');
    await nothingStarted(async () => {
      const err = await client.sendMessage(send([pdf])).then(
        () => undefined,
        (e: unknown) => e as { envelopeCode?: number; message: string },
      );
      expect(err?.envelopeCode).toBe(-32005);
      expect(err?.message).toMatch(/text\/plain/);
      expectPlain(err?.message);
      const streamed = await call(
        'message/stream',
        {
          message: msg03({
            parts: [{ kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } }],
          }),
        },
        '0.3',
      );
      expectRefused(streamed, -32005, /text\/plain/);
    });
  });

  it('a file-only answer to a task waiting for input gets -32005 and the approval stays pending', async () => {
    const events = await collect(rig.client.sendMessageStream(send([text(NOTE_QUERY)])));
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = taskIdOf(events);
    const err = await rig.client.sendMessage(send([image], { taskId })).then(
      () => undefined,
      (e: unknown) => e as { envelopeCode?: number; message: string },
    );
    expect(err?.envelopeCode).toBe(-32005);
    expect(err?.message).toMatch(/application\/json/);
    expect((await rig.client.getTask({ tenant: '', id: taskId })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    expect(rig.parley.approvals.listPending(taskId)).toHaveLength(1);
    await rig.client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
  });

  it('a data part with no text on a new task stays -32602 (the media type is accepted, the question is missing)', async () => {
    await nothingStarted(async () => {
      expectRefused(
        await call('SendMessage', { message: msg10({ parts: [{ data: { a: 1 } }] }) }, '1.0'),
        -32602,
        /text part/,
      );
      // …but a file part next to it still makes the message unreadable: -32005.
      expectRefused(
        await call(
          'SendMessage',
          { message: msg10({ parts: [{ url: 'https://example.com/a.png', mediaType: 'image/png' }] }) },
          '1.0',
        ),
        -32005,
        /text\/plain/,
      );
    });
  });
});

describe('POST /a2a/ (trailing slash) is /a2a', () => {
  it('raw v0.3 and v1.0 JSON-RPC work on /a2a/', async () => {
    const sent = await call('message/send', { message: msg03({ messageId: 'm-slash' }) }, '0.3', '/a2a/');
    expect(sent.status).toBe(200);
    expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const got = await call('GetTask', { id: (sent.body.result as { id: string }).id }, '1.0', '/a2a/');
    expect(got.body.result).toMatchObject({ id: (sent.body.result as { id: string }).id });
    const refused = await call('GetTask', { id: 5 }, '1.0', '/a2a/');
    expectRefused(refused, -32602, /\bid\b/);
  });

  it('the SDK client works against a card whose interface URL ends in /a2a/', async () => {
    const card = await rig.client.getAgentCard();
    const slashed: AgentCard = {
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: `${rig.server.url}/a2a/` })),
    };
    const client = await new ClientFactory().createFromAgentCard(slashed);
    const task = (await client.sendMessage(send([text('slash please [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = await collect(client.sendMessageStream(send([text('slash stream [[route:direct]]')])));
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
