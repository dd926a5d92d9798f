/**
 * A2A's gRPC binding (v1.0, lf.a2a.v1.A2AService) on its own port, mounted as the composition root mounts
 * it, driven by the @a2a-js/sdk client with its gRPC transport picked from the card: send, stream, resume
 * an approval, list, cancel; the same tasks, callers and push configs as JSON-RPC; bad input gets gRPC's
 * own status codes (with the A2A ErrorInfo in grpc-status-details-bin) and starts nothing. The TCK checks
 * mirrored here are named in docs/protocols/a2a.md.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Role, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2AError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { decodeErrorInfo, decodeStatus, GRPC_STATUS_DETAILS_BIN, isGrpcError } from '@a2a-js/sdk/errors/grpc';
import {
  NOTE_QUERY,
  a2aClientAs,
  approvalPart,
  collect,
  data,
  listTasks,
  send,
  stateOf,
  taskIdOf,
  text,
} from '../../../support/protocols/a2a-helpers.ts';
import {
  a2aGrpcClientAs,
  rawCall,
  rawGrpcClient,
  startA2AServerRig,
  type A2AServerRig,
} from '../../../support/protocols/a2a-server-rig.ts';

let rig: A2AServerRig;
let alice: Client;
let bob: Client;
beforeAll(async () => {
  rig = await startA2AServerRig({ keys: ['key-alice', 'key-bob'] });
  alice = await a2aGrpcClientAs(rig.server.url, 'key-alice');
  bob = await a2aGrpcClientAs(rig.server.url, 'key-bob');
});
afterAll(async () => {
  await rig?.close();
});

/** The gRPC status and A2A reason an SDK-client call failed with. */
async function failure(call: Promise<unknown>): Promise<{ status: number; reason?: string; message: string }> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(A2AError);
    expect(isGrpcError(err)).toBe(true);
    const e = err as A2AError & { status: number; statusDetailsBin?: Buffer };
    const detail = e.statusDetailsBin ? decodeStatus(e.statusDetailsBin).details[0] : undefined;
    return {
      status: e.status,
      ...(detail ? { reason: decodeErrorInfo(detail.value).reason } : {}),
      message: e.message,
    };
  }
  throw new Error('the call succeeded');
}

const answerOf = (task: Task) => {
  const part = task.artifacts.find((a) => a.artifactId === 'answer')?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
};

describe('the card announces gRPC', () => {
  it('lists GRPC (v1.0) at the host of the card URL and the bound port, after JSON-RPC and HTTP+JSON', async () => {
    const res = await fetch(`${rig.server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const card = (await res.json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
      ['JSONRPC', `${rig.server.url}/a2a`],
      ['HTTP+JSON', `${rig.server.url}/a2a/rest`],
      ['GRPC', rig.grpcAddress],
      ['JSONRPC', `${rig.server.url}/a2a`],
    ]);
    expect(alice.transport.protocolName).toBe('GRPC');
  });
});

describe('the SDK client over gRPC', () => {
  it('SendMessage runs the graph and returns the completed task with its answer', async () => {
    const task = (await alice.sendMessage(send([text('hello over grpc [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBeTruthy();
    expect((await alice.getTask({ tenant: '', id: task.id, historyLength: 1 })).history).toHaveLength(1);
  });

  it('streams to input-required, resubscribes, resumes with a decision message, and ends COMPLETED', async () => {
    const asked = await collect(alice.sendMessageStream(send([text(NOTE_QUERY)])));
    // TCK STREAM-*: the first event is the task, each event has exactly one payload.
    expect(asked[0]!.payload?.$case).toBe('task');
    expect(stateOf(asked.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = taskIdOf(asked);

    const followed: StreamResponse[] = [];
    const following = (async () => {
      for await (const e of alice.resubscribeTask({ tenant: '', id: taskId })) followed.push(e);
    })();
    const [pending] = approvalPart(asked).pending;
    const decisions = Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'accept']));
    const resumed = await collect(
      alice.sendMessageStream(send([data({ request_id: pending!.request_id, decisions })], { taskId })),
    );
    expect(stateOf(resumed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    await following;
    // TCK STREAM-SUB-001: a subscription starts with the task.
    expect(followed[0]!.payload?.$case).toBe('task');
    expect(stateOf(followed[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(followed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    // The tool ran once the decision came: the fixture holds the note.
    expect(rig.fixture.state.writes).toContainEqual({ path: 'a2a.txt', content: 'hello' });
  });

  it('ListTasks shows the caller’s tasks only; another key sees nothing and gets NOT_FOUND for them', async () => {
    const task = (await alice.sendMessage(send([text('listed over grpc [[route:direct]]')]))) as Task;
    const listed = await listTasks(alice, { includeArtifacts: true });
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
    expect((await listTasks(bob)).tasks).toEqual([]);
    // TCK GRPC-META-001: service parameters travel as metadata; an extension Parley does not know is ignored.
    const withExtension = await alice.getTask(
      { tenant: '', id: task.id },
      { serviceParameters: { 'A2A-Extensions': 'https://example.com/extensions/unknown/v1' } },
    );
    expect(withExtension.id).toBe(task.id);
    const notFound = await failure(bob.getTask({ tenant: '', id: task.id }));
    expect(notFound).toMatchObject({ status: GrpcStatus.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await failure(bob.cancelTask({ tenant: '', id: task.id, metadata: {} }))).status).toBe(
      GrpcStatus.NOT_FOUND,
    );
  });

  it('shares tasks and push configs with JSON-RPC: one key, one set of tasks, whatever the binding', async () => {
    const overGrpc = (await alice.sendMessage(send([text('shared task [[route:direct]]')]))) as Task;
    const jsonRpc = await a2aClientAs(rig.server.url, 'key-alice');
    expect(jsonRpc.transport.protocolName).toBe('JSONRPC');
    expect((await jsonRpc.getTask({ tenant: '', id: overGrpc.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const config = await alice.createTaskPushNotificationConfig({
      tenant: '',
      id: 'hook-1',
      taskId: overGrpc.id,
      url: 'https://93.184.215.14/a2a-hook',
      token: 'secret-token',
      authentication: undefined,
    });
    expect(config.id).toBe('hook-1');
    const listed = await jsonRpc.listTaskPushNotificationConfig({
      tenant: '',
      taskId: overGrpc.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.url)).toEqual(['https://93.184.215.14/a2a-hook']);
    await alice.deleteTaskPushNotificationConfig({ tenant: '', taskId: overGrpc.id, id: 'hook-1' });
    expect(
      (await jsonRpc.listTaskPushNotificationConfig({ tenant: '', taskId: overGrpc.id, pageSize: 0, pageToken: '' }))
        .configs,
    ).toEqual([]);
  });

  it('an approval asked over gRPC can be answered over JSON-RPC, and cancel settles one', async () => {
    const asked = await collect(alice.sendMessageStream(send([text(NOTE_QUERY)])));
    const taskId = taskIdOf(asked);
    const jsonRpc = await a2aClientAs(rig.server.url, 'key-alice');
    const [pending] = approvalPart(asked).pending;
    const writes = rig.fixture.state.writes.length;
    const decisions = Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'deny']));
    const resumed = await collect(
      jsonRpc.sendMessageStream(send([data({ request_id: pending!.request_id, decisions })], { taskId })),
    );
    expect(stateOf(resumed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(rig.fixture.state.writes.length).toBe(writes);

    const again = await collect(alice.sendMessageStream(send([text(NOTE_QUERY)])));
    const cancelled = await alice.cancelTask({ tenant: '', id: taskIdOf(again), metadata: {} });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe('bad input gets gRPC’s own status codes and starts nothing', () => {
  it('no key or a wrong key: UNAUTHENTICATED, before anything is read', async () => {
    const anonymous = await a2aGrpcClientAs(rig.server.url);
    const none = await failure(anonymous.getTask({ tenant: '', id: 'x' }));
    expect(none.status).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(none.message).toMatch(/Missing API key/);
    const wrong = await a2aGrpcClientAs(rig.server.url, 'key-mallory');
    expect((await failure(wrong.sendMessage(send([text('hi [[route:direct]]')])))).status).toBe(
      GrpcStatus.UNAUTHENTICATED,
    );
    await expect(collect(wrong.sendMessageStream(send([text('hi [[route:direct]]')])))).rejects.toMatchObject({
      status: GrpcStatus.UNAUTHENTICATED,
    });
  });

  it('a message without text, with an unspecified role, or only file parts: INVALID_ARGUMENT with the reason', async () => {
    // The run cancelled by the test before may still be winding down.
    await vi.waitFor(() => expect(rig.parley.engine.activeRuns).toBe(0), { timeout: 10_000 });
    const listedBefore = (await listTasks(alice)).tasks.length;
    const noText = await failure(alice.sendMessage(send([data({ a: 1 })])));
    expect(noText).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, reason: 'INVALID_PARAMS' });
    expect(noText.message).toMatch(/non-empty text part/);
    const role = send([text('who am I')]);
    role.message!.role = Role.ROLE_UNSPECIFIED;
    expect((await failure(alice.sendMessage(role))).status).toBe(GrpcStatus.INVALID_ARGUMENT);
    const fileOnly = await failure(
      alice.sendMessage(
        send([
          {
            content: { $case: 'raw', value: Buffer.from('tck') },
            metadata: undefined,
            filename: '',
            mediaType: 'application/x-unsupported-tck-type',
          },
        ]),
      ),
    );
    // TCK CORE-SEND-003: ContentTypeNotSupportedError is INVALID_ARGUMENT on gRPC.
    expect(fileOnly).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, reason: 'CONTENT_TYPE_NOT_SUPPORTED' });
    expect(rig.parley.engine.activeRuns).toBe(0);
    expect((await listTasks(alice)).tasks.length).toBe(listedBefore);
  });

  it('an unknown task: NOT_FOUND with TASK_NOT_FOUND (TCK GRPC-ERR-001/002); subscribe to one too', async () => {
    expect(await failure(alice.getTask({ tenant: '', id: 'no-such-task' }))).toMatchObject({
      status: GrpcStatus.NOT_FOUND,
      reason: 'TASK_NOT_FOUND',
    });
    await expect(collect(alice.resubscribeTask({ tenant: '', id: 'no-such-task' }))).rejects.toMatchObject({
      status: GrpcStatus.NOT_FOUND,
    });
  });

  it('a message to a finished task: FAILED_PRECONDITION (A2A 1.0.1 §5.4; the TCK 1.0-dev expects UNIMPLEMENTED)', async () => {
    const task = (await alice.sendMessage(send([text('done soon [[route:direct]]')]))) as Task;
    const late = await failure(alice.sendMessage(send([text('one more thing')], { taskId: task.id })));
    expect(late.status).toBe(GrpcStatus.FAILED_PRECONDITION);
    expect((await failure(alice.cancelTask({ tenant: '', id: task.id, metadata: {} }))).reason).toBe(
      'TASK_NOT_CANCELABLE',
    );
    // TCK STREAM-SUB-003: subscribing to a finished task is refused (UnsupportedOperation).
    await expect(collect(alice.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject({
      status: GrpcStatus.FAILED_PRECONDITION,
    });
  });

  it('no A2A-Version or an unknown one: FAILED_PRECONDITION VERSION_NOT_SUPPORTED (only 1.0 over gRPC)', async () => {
    const raw = rawGrpcClient(rig.grpcAddress);
    try {
      for (const metadata of [{}, { 'a2a-version': '99.0' }] as Record<string, string>[]) {
        const { error } = await rawCall(
          raw,
          'getTask',
          { tenant: '', id: 'x' },
          {
            authorization: 'Bearer key-alice',
            ...metadata,
          },
        );
        expect(error?.code).toBe(GrpcStatus.FAILED_PRECONDITION);
        const bin = error!.metadata.get(GRPC_STATUS_DETAILS_BIN)[0] as Buffer;
        expect(decodeErrorInfo(decodeStatus(bin).details[0]!.value).reason).toBe('VERSION_NOT_SUPPORTED');
      }
      const ok = await rawCall(
        raw,
        'listTasks',
        { tenant: '', contextId: '', status: 0, pageToken: '' },
        {
          authorization: 'Bearer key-alice',
          'a2a-version': '1.0',
        },
      );
      expect(ok.error).toBeUndefined();
    } finally {
      raw.close();
    }
  });
});
