/**
 * A2A mounted as the composition root mounts it: behind the real HTTP app (API-key auth, body
 * limit, JSON errors), the agent card public, tasks scoped to the caller's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { TaskState, type Task } from '@a2a-js/sdk';
import { type Client } from '@a2a-js/sdk/client';
import { createHttpApp } from '../../../../src/http/app.ts';
import { callerOf } from '../../../../src/http/auth.ts';
import { silentLogger } from '../../../../src/log.ts';
import { a2aRoutes } from '../../../../src/protocols/a2a/index.ts';
import { sseRoutes } from '../../../../src/protocols/sse/index.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { a2aClientAs, NOTER, send, text } from '../../../support/protocols/a2a-helpers.ts';

const KEYS = ['key-alice', 'key-bob'];
const ADMIN = 'key-admin';
let parley: TestParley;
let server: TestServer;

beforeAll(async () => {
  parley = await createTestParley({ roster: false, specialists: [NOTER] });
  const config = { ...parley.config, server: { ...parley.config.server, apiKeys: KEYS } };
  const app = createHttpApp({
    version: 'test',
    apiKeys: KEYS,
    adminKeys: [ADMIN],
    bodyLimitBytes: 64 * 1024,
    logger: silentLogger,
    readiness: [],
    publicPaths: ['/.well-known/agent-card.json'],
    routes: [
      { path: '/', app: sseRoutes({ engine: parley.engine, config, logger: silentLogger }) },
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
    ],
  });
  server = await listen(app as unknown as Hono);
});
afterAll(async () => {
  await server?.close();
  await parley?.close();
});

const clientWith = (key: string): Promise<Client> => a2aClientAs(server.url, key);

describe('A2A behind API-key auth', () => {
  it('the card is public and declares bearer auth', async () => {
    const res = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as {
      securitySchemes: Record<string, unknown>;
      supportedInterfaces: { url: string }[];
    };
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
    expect(card.supportedInterfaces[0]?.url).toBe(`${server.url}/a2a`);
  });

  it('JSON-RPC without a key gets 401 and starts nothing', async () => {
    const res = await fetch(`${server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    expect(res.status).toBe(401);
    expect(parley.engine.activeRuns).toBe(0);
  });

  it('tasks belong to the key that created them', async () => {
    const alice = await clientWith('key-alice');
    const bob = await clientWith('key-bob');
    const task = (await alice.sendMessage(send([text('a private question [[route:direct]]')]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await alice.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    const listed = await bob.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks).toHaveLength(0);
  });

  it("an admin key does not see another key's A2A task (the SDK's per-user scope), but reaches its run by the task id", async () => {
    const alice = await clientWith('key-alice');
    const admin = await clientWith(ADMIN);
    const task = (await alice.sendMessage(send([text('another private question [[route:direct]]')]))) as Task;
    // Documented in docs/security.md: a task is a protocol object of the key that made it, like an MCP session.
    await expect(admin.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    // The run behind it (task id = run id) is the admin's to read, like every caller's runs.
    const events = await fetch(`${server.url}/api/runs/${task.id}/events`, {
      headers: { authorization: `Bearer ${ADMIN}`, accept: 'application/json' },
    });
    expect(events.status).toBe(200);
    expect(((await events.json()) as { type: string }[]).at(-1)).toMatchObject({ type: 'run.finished' });
    const asBob = await fetch(`${server.url}/api/runs/${task.id}/events`, {
      headers: { authorization: 'Bearer key-bob', accept: 'application/json' },
    });
    expect(asBob.status).toBe(404);
  });

  it('the body limit applies (413) before JSON-RPC parsing', async () => {
    const res = await fetch(`${server.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', authorization: 'Bearer key-alice' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { pad: 'x'.repeat(70 * 1024) } }),
    });
    expect(res.status).toBe(413);
  });
});
