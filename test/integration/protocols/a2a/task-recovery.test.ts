/**
 * A2A task recovery at start (A2ARunBridge.recover), through the @a2a-js/sdk client: an endpoint built
 * over a task store whose unfinished task has no run in the engine (the run store was reset, or the run
 * was forgotten) ends that task failed, saying why, instead of leaving it working forever or answering
 * task-not-found. The restart of a real process is test/integration/cli/restart-a2a.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { a2aRoutes } from '../../../../src/protocols/a2a/index.ts';
import { silentLogger } from '../../../../src/log.ts';
import { openKv, type Kv } from '../../../../src/store/kv.ts';
import { createLmdbA2aTaskStore } from '../../../../src/store/a2a-tasks/lmdb.ts';
import type { A2ATaskStore } from '../../../../src/store/a2a-tasks/types.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import { listen, type TestServer } from '../../../support/http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import { NOTER, NOTE_QUERY, collect, send, stateOf, taskIdOf, text } from '../../../support/protocols/a2a-helpers.ts';

let fixture: FixtureHttpServer;
let dataDir: string;
let kv: Kv;
let tasks: A2ATaskStore;
const parleys: TestParley[] = [];
const servers: TestServer[] = [];

beforeAll(async () => {
  fixture = await startFixtureHttpServer();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-a2a-recovery-'));
  kv = openKv(dataDir);
  tasks = createLmdbA2aTaskStore(kv, { maxFinished: 10 });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const p of parleys) await p.close();
  await kv?.close();
  await fixture?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh engine, and an A2A endpoint over it and the shared task store. */
async function endpoint(): Promise<Client> {
  const parley = await createTestParley({
    roster: false,
    specialists: [NOTER],
    mcpServers: { fx: { url: fixture.mcpUrl } },
  });
  parleys.push(parley);
  const app = new Hono();
  const server = await listen(app);
  servers.push(server);
  app.route(
    '/',
    a2aRoutes({
      engine: parley.engine,
      store: parley.store,
      config: parley.config,
      logger: silentLogger,
      publicUrl: server.url,
      tasks,
    }),
  );
  return new ClientFactory().createFromUrl(server.url);
}

describe('recovering A2A tasks at start', () => {
  it('a task whose run the engine no longer has ends failed with the reason, never task-not-found', async () => {
    const before = await endpoint();
    const asked = await collect(before.sendMessageStream(send([text(NOTE_QUERY)])));
    expect(stateOf(asked.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = taskIdOf(asked);
    const finishedId = ((await before.sendMessage(send([text('a finished one [[route:direct]]')]))) as { id: string })
      .id;

    // Another engine (its run store knows nothing of that run) over the same task store.
    const after = await endpoint();
    const task = await after.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task.status?.message?.parts)).toMatch(/did not survive a restart/);
    // History and artifacts it had are kept; finished tasks are left as they were.
    expect(task.history.length).toBeGreaterThan(1);
    expect((await after.getTask({ tenant: '', id: finishedId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
