/**
 * The A2A task store's bound (PARLEY_A2A_TASK_RETENTION_MAX) and its ListTasks semantics, through the
 * real thing: a2aRoutes on 127.0.0.1 in front of the real engine, driven by the @a2a-js/sdk client.
 * With the cap at 3 the fourth finished task drops the first; a task still running or waiting for
 * input is never dropped, and joins the queue only once it finishes.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { a2aRoutes } from '../../../../src/protocols/a2a/index.ts';
import { silentLogger } from '../../../../src/log.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import {
  NOTER,
  NOTE_QUERY,
  approvalPart,
  collect,
  data,
  send,
  stateOf,
  taskIdOf,
  text,
  listTasks,
} from '../../../support/protocols/a2a-helpers.ts';

let fixture: FixtureHttpServer;
let parley: TestParley;
const servers: TestServer[] = [];

/** An A2A endpoint over the shared engine whose task store keeps `cap` finished tasks. */
async function endpoint(cap: number): Promise<Client> {
  const app = new Hono();
  const server = await listen(app);
  servers.push(server);
  const config = { ...parley.config, protocols: { ...parley.config.protocols, a2aTaskRetentionMax: cap } };
  app.route(
    '/',
    a2aRoutes({
      engine: parley.engine,
      store: parley.store,
      config,
      logger: silentLogger,
      publicUrl: server.url,
    }),
  );
  return new ClientFactory().createFromUrl(server.url);
}

beforeAll(async () => {
  fixture = await startFixtureHttpServer();
  parley = await createTestParley({ roster: false, specialists: [NOTER], mcpServers: { fx: { url: fixture.mcpUrl } } });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await parley?.close();
  await fixture?.close();
});

const list = listTasks;
const ask = async (client: Client, query: string, on: { contextId?: string } = {}) =>
  (await client.sendMessage(send([text(`${query} [[route:direct]]`)], on))) as Task;
const getTask = (client: Client, id: string) => client.getTask({ tenant: '', id });

describe('PARLEY_A2A_TASK_RETENTION_MAX', () => {
  it('with the cap at 3, the fourth finished task drops the first: GetTask answers task-not-found, ListTasks shows 3', async () => {
    const client = await endpoint(3);
    const tasks: Task[] = [];
    for (const q of ['one', 'two', 'three']) tasks.push(await ask(client, q));
    expect(tasks.map((t) => t.status?.state)).toEqual(Array(3).fill(TaskState.TASK_STATE_COMPLETED));
    expect((await list(client)).totalSize).toBe(3);

    tasks.push(await ask(client, 'four'));
    await expect(getTask(client, tasks[0]!.id)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await getTask(client, tasks[1]!.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await list(client);
    expect(listed.totalSize).toBe(3);
    expect(listed.tasks.map((t) => t.id).sort()).toEqual(
      tasks
        .slice(1)
        .map((t) => t.id)
        .sort(),
    );
  });

  it('never drops a task still running or waiting for input; each joins the queue when it finishes', async () => {
    const client = await endpoint(3);
    // Waiting for a human: the noter's write_note needs approval.
    const waiting = await collect(client.sendMessageStream(send([text(NOTE_QUERY)])));
    expect(stateOf(waiting.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const waitingId = taskIdOf(waiting);
    // Running: the model takes its time; the stream stays open while other tasks come and go.
    const slowStream = client.sendMessageStream(send([text('a slow one [[route:direct]] [[latency:1500]]')]));
    const slow = slowStream[Symbol.asyncIterator]();
    const first = await slow.next();
    const runningId = first.value && !first.done ? taskIdOf([first.value]) : '';
    expect(runningId).not.toBe('');

    const finished: Task[] = [];
    for (const q of ['a', 'b', 'c', 'd', 'e']) finished.push(await ask(client, q));
    expect((await getTask(client, waitingId)).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
      (await getTask(client, runningId)).status?.state,
    );
    await expect(getTask(client, finished[1]!.id)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await list(client)).totalSize).toBe(5); // 3 finished + the two unfinished ones

    // The slow one finishes: it is now the newest finished task and the oldest kept one ('c') goes.
    for (let e = await slow.next(); !e.done; e = await slow.next());
    expect((await getTask(client, runningId)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(getTask(client, finished[2]!.id)).rejects.toBeInstanceOf(TaskNotFoundError);

    // The waiting one is approved and completes; three more finished tasks later it is dropped too.
    const [pending] = approvalPart(waiting).pending;
    const decisions = Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'accept']));
    const resumed = await collect(
      client.sendMessageStream(send([data({ request_id: pending!.request_id, decisions })], { taskId: waitingId })),
    );
    expect(stateOf(resumed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await getTask(client, waitingId)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    for (const q of ['f', 'g']) await ask(client, q);
    expect((await getTask(client, waitingId)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await ask(client, 'h');
    await expect(getTask(client, waitingId)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await list(client)).totalSize).toBe(3);
  });
});

describe('ListTasks over the bounded store', () => {
  let client: Client;
  const ids: string[] = [];
  let contextId = '';

  beforeAll(async () => {
    client = await endpoint(100);
    // Five turns of one conversation, then two of another.
    const first = await ask(client, 'turn 0');
    contextId = first.contextId;
    ids.push(first.id);
    for (let i = 1; i < 5; i++) ids.push((await ask(client, `turn ${i}`, { contextId })).id);
    await ask(client, 'elsewhere 0');
    await ask(client, 'elsewhere 1');
  });

  it('filters by context and by state, newest status first, artifacts only when asked for', async () => {
    const byContext = await list(client, { contextId });
    expect(byContext.totalSize).toBe(5);
    expect(byContext.tasks.map((t) => t.id)).toEqual([...ids].reverse());
    expect(byContext.tasks.every((t) => t.artifacts.length === 0)).toBe(true);

    const withArtifacts = await list(client, { contextId, includeArtifacts: true });
    expect(withArtifacts.tasks.every((t) => t.artifacts.some((a) => a.artifactId === 'answer'))).toBe(true);

    expect((await list(client, { status: TaskState.TASK_STATE_COMPLETED })).totalSize).toBe(7);
    expect((await list(client, { status: TaskState.TASK_STATE_FAILED })).totalSize).toBe(0);

    const last = byContext.tasks[0]!;
    expect(
      (await list(client, { statusTimestampAfter: byContext.tasks[1]!.status!.timestamp })).tasks.map((t) => t.id),
    ).toContain(last.id);
  });

  it('pages with pageSize and pageToken through every task once, and trims history to historyLength', async () => {
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await list(client, { contextId, pageSize: 2, pageToken });
      expect(page.totalSize).toBe(5);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((t) => t.id));
      pageToken = page.nextPageToken;
      pages++;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const full = await list(client, { contextId, pageSize: 1 });
    expect(full.tasks[0]!.history.length).toBeGreaterThan(1);
    const trimmed = await list(client, { contextId, pageSize: 1, historyLength: 1 });
    expect(trimmed.tasks[0]!.history).toHaveLength(1);
    await expect(list(client, { pageToken: 'not a cursor' })).rejects.toThrow(/page token|cursor/i);
  });
});
