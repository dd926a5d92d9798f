/**
 * A2A's HTTP+JSON (REST) binding, mounted as the composition root mounts it (the real HTTP app: API-key
 * auth, Host/Origin check, body limit), driven by the @a2a-js/sdk client with its REST transport chosen
 * from the card. Same tasks and scoping as JSON-RPC; a bad request gets the binding's error shape
 * ({ error: { code, status, message, details } }) with no stack trace or file path.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { createHttpApp } from '../../../../src/http/app.ts';
import { callerOf } from '../../../../src/http/auth.ts';
import { approvalRoutes } from '../../../../src/hitl/routes.ts';
import { silentLogger } from '../../../../src/log.ts';
import { a2aRoutes } from '../../../../src/protocols/a2a/index.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import {
  NOTER,
  NOTE_QUERY,
  a2aClientAs,
  approvalPart,
  listTasks,
  collect,
  data,
  send,
  stateOf,
  taskIdOf,
  text,
} from '../../../support/protocols/a2a-helpers.ts';

const KEYS = ['key-alice', 'key-bob'];
let fixture: FixtureHttpServer;
let parley: TestParley;
let server: TestServer;
let rest: string;

beforeAll(async () => {
  fixture = await startFixtureHttpServer();
  parley = await createTestParley({ roster: false, specialists: [NOTER], mcpServers: { fx: { url: fixture.mcpUrl } } });
  const config = { ...parley.config, server: { ...parley.config.server, apiKeys: KEYS } };
  const app = createHttpApp({
    version: 'test',
    apiKeys: KEYS,
    bodyLimitBytes: 64 * 1024,
    logger: silentLogger,
    readiness: [],
    publicPaths: ['/.well-known/agent-card.json'],
    routes: [
      {
        path: '/',
        app: a2aRoutes({
          engine: parley.engine,
          store: parley.store,
          config,
          logger: silentLogger,
          callerOf: (c) => callerOf(c).id,
        }),
      },
      { path: '/', app: approvalRoutes({ broker: parley.approvals }) },
    ],
  });
  server = await listen(app as unknown as Hono);
  rest = `${server.url}/a2a/rest`;
});
afterAll(async () => {
  await server?.close();
  await parley?.close();
  await fixture?.close();
});

/** The SDK client with only its REST transport, as `key`; `urls` records every URL it fetched. */
const restClient = (key: string, urls: string[] = []): Promise<Client> =>
  a2aClientAs(server.url, key, { rest: true, urls });

const list = listTasks;

type RestError = { error: { code: number; status: string; message: string; details: { reason?: string }[] } };

/** A raw request to the binding, as alice, with the v1.0 header unless told otherwise. */
async function raw(path: string, init: RequestInit & { version?: string | null; key?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set('authorization', `Bearer ${init.key ?? 'key-alice'}`);
  if (init.version !== null) headers.set('A2A-Version', init.version ?? '1.0');
  const res = await fetch(`${rest}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as RestError };
}

function expectClean(text: string): void {
  expect(text).not.toMatch(/\n\s+at |node_modules|\/src\/|\.ts:\d+/);
}

describe('the agent card announces the REST binding', () => {
  it('lists HTTP+JSON at /a2a/rest (v1.0) after JSON-RPC', async () => {
    const res = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const card = (await res.json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['JSONRPC', `${server.url}/a2a`, '1.0'],
      ['HTTP+JSON', `${server.url}/a2a/rest`, '1.0'],
      ['JSONRPC', `${server.url}/a2a`, '0.3'],
    ]);
  });
});

describe('the SDK client over HTTP+JSON', () => {
  it('sends, gets and lists tasks over REST, scoped to the caller’s key', async () => {
    const urls: string[] = [];
    const alice = await restClient('key-alice', urls);
    const bob = await restClient('key-bob');
    const task = (await alice.sendMessage(send([text('hello over rest [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.some((a) => a.artifactId === 'answer')).toBe(true);
    expect(urls).toContain(`${rest}/message:send`);

    expect((await alice.getTask({ tenant: '', id: task.id, historyLength: 1 })).history).toHaveLength(1);
    const listed = await list(alice, { includeArtifacts: true });
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
    expect(listed.tasks.find((t) => t.id === task.id)!.artifacts.length).toBeGreaterThan(0);
    expect(urls.some((u) => u.startsWith(`${rest}/tasks?`))).toBe(true);

    expect((await list(bob)).tasks).toEqual([]);
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('a tenant in the path scopes the task: found under it, not without it', async () => {
    const urls: string[] = [];
    const alice = await restClient('key-alice', urls);
    const task = (await alice.sendMessage({
      ...send([text('a tenant question [[route:direct]]')]),
      tenant: 'acme',
    })) as Task;
    expect(urls).toContain(`${rest}/acme/message:send`);
    expect((await alice.getTask({ tenant: 'acme', id: task.id })).id).toBe(task.id);
    expect((await list(alice, { tenant: 'acme' })).tasks.map((t) => t.id)).toEqual([task.id]);
    await expect(alice.getTask({ tenant: '', id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(alice.getTask({ tenant: 'other', id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('streams to input-required, resubscribes, resumes with a decision on the task, and ends COMPLETED', async () => {
    const urls: string[] = [];
    const alice = await restClient('key-alice', urls);
    const asked = await collect(alice.sendMessageStream(send([text(NOTE_QUERY)])));
    expect(urls).toContain(`${rest}/message:stream`);
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
    expect(urls).toContain(`${rest}/tasks/${taskId}:subscribe`);
    expect(stateOf(followed[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(followed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('push-notification configs over REST: create, get, list, delete, scoped to the caller', async () => {
    const urls: string[] = [];
    const alice = await restClient('key-alice', urls);
    const bob = await restClient('key-bob');
    const task = (await alice.sendMessage(send([text('a task to watch [[route:direct]]')]))) as Task;
    const config = { tenant: '', id: 'hook', taskId: task.id, url: 'https://93.184.215.14/hook', token: 't' };
    const created = await alice.createTaskPushNotificationConfig({ ...config, authentication: undefined });
    expect(created).toMatchObject({ id: 'hook', url: config.url });
    expect(urls).toContain(`${rest}/tasks/${task.id}/pushNotificationConfigs`);
    expect(await alice.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook' })).toMatchObject({
      url: config.url,
    });
    const ref = { tenant: '', taskId: task.id, pageSize: 0, pageToken: '' };
    expect((await alice.listTaskPushNotificationConfig(ref)).configs.map((c) => c.id)).toEqual(['hook']);
    await expect(bob.listTaskPushNotificationConfig(ref)).rejects.toBeInstanceOf(TaskNotFoundError);
    await alice.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook' });
    expect((await alice.listTaskPushNotificationConfig(ref)).configs).toEqual([]);
  });

  it('cancels a running task over REST', async () => {
    const alice = await restClient('key-alice');
    const events = alice.sendMessageStream(send([text('take your time [[route:direct]] [[latency:20000]]')]));
    const it = events[Symbol.asyncIterator]();
    const first = await it.next();
    const taskId = taskIdOf([first.value as StreamResponse]);
    const cancelled = await alice.cancelTask({ tenant: '', id: taskId, metadata: {} });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    for (let e = await it.next(); !e.done; e = await it.next());
    expect((await alice.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The task is cancelled at once; the run behind it winds down after: the next tests count active runs.
    await vi.waitFor(() => expect(parley.engine.activeRuns).toBe(0), { timeout: 10_000 });
  });
});

describe('bad requests get the binding’s own error shape', () => {
  it('invalid JSON: 400 INVALID_ARGUMENT, nothing started', async () => {
    const before = parley.engine.activeRuns;
    const res = await raw('/message:send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message": ',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(res.body.error.message).toMatch(/Invalid JSON payload/);
    expect(parley.engine.activeRuns).toBe(before);
    expectClean(res.text);
  });

  it('a message of the wrong type or without one: 400 INVALID_ARGUMENT naming the field', async () => {
    const wrong = await raw('/message:send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 42 }] } }),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(wrong.body.error.message).toMatch(/parts\[0\]\.text/);
    expectClean(wrong.text);
    const none = await raw('/message:send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/message: is required/);
  });

  it('a body that is not JSON-typed: 415 with the content-type reason', async () => {
    const res = await raw('/message:send', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 415, status: 'INVALID_ARGUMENT' });
    expect(res.body.error.details.map((d) => d.reason)).toContain('CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('an unknown task: 404 NOT_FOUND with the task-not-found reason; an unknown route: 404', async () => {
    const res = await raw('/tasks/no-such-task');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(res.body.error.details.map((d) => d.reason)).toContain('TASK_NOT_FOUND');
    const route = await raw('/nowhere/at/all');
    expect(route.status).toBe(404);
    expect(route.body.error.status).toBe('NOT_FOUND');
  });

  it('bad query values: 400 naming them', async () => {
    const res = await raw('/tasks?pageSize=1000');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/pageSize/);
    const history = await raw('/tasks/x?historyLength=-1');
    expect(history.status).toBe(400);
    expect(history.body.error.message).toMatch(/historyLength/);
  });

  it('no A2A-Version header: the version is refused (only v1.0 is served over REST)', async () => {
    const res = await raw('/tasks', { version: null });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d) => d.reason)).toContain('VERSION_NOT_SUPPORTED');
  });

  it('the app’s checks apply as on JSON-RPC: no key 401, a foreign Origin 403, a large body 413', async () => {
    expect((await raw('/tasks', { key: null })).status).toBe(401);
    expect((await raw('/tasks', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    const big = await raw('/message:send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
    });
    expect(big.status).toBe(413);
  });
});
