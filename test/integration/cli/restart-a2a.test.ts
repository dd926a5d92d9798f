/**
 * A2A tasks across a restart of a real `parley serve` process on the same data dir (docs/protocols/a2a.md
 * "Tasks across a restart"), through the @a2a-js/sdk client: a task waiting on an approval is found
 * again after kill -9 (and SIGTERM) with the same id and state, listed for its owner only, resubscribed,
 * and finished by an approval given through POST /api/approve (kill -9) or a resume message on the task
 * (SIGTERM), with the tool's effect on disk. A task whose run cannot resume ends failed with the run's
 * reason, never task-not-found.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses, type ServeProcess } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';
import { postJson } from '../../support/protocols/sse-read.ts';
import {
  a2aClientAs,
  approvalPart,
  collect,
  data,
  listTasks,
  send,
  stateOf,
  taskIdOf,
  text,
} from '../../support/protocols/a2a-helpers.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const ALICE = 'key-alice-restart';
const BOB = 'key-bob-restart';
const { serve, tempDataDir } = useServeProcesses('parley-restart-a2a', { PARLEY_API_KEYS: `${ALICE},${BOB}` });

const list = listTasks;

async function stop(s: ServeProcess, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  s.child.kill(signal);
  const stopped = await s.exit;
  if (signal === 'SIGTERM') expect(stopped.code).toBe(0);
  else expect(stopped.signal).toBe('SIGKILL');
}

/** Reaches the approval, stops the server with `signal`, starts it again and decides through `channel`. */
async function approvalSurvives(signal: 'SIGKILL' | 'SIGTERM', channel: '/api/approve' | 'a2a message') {
  const dataDir = tempDataDir();
  const file = `a2a-${signal}.txt`;
  const first = await serve(dataDir);
  const alice = await a2aClientAs(first.url, ALICE);
  const asked = await collect(
    alice.sendMessageStream(
      send([text(writeFileQuery(dataDir, file, `written after ${signal}`))], {}, { mode: 'orchestrate' }),
    ),
  );
  expect(stateOf(asked.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const taskId = taskIdOf(asked);
  const [pending] = approvalPart(asked).pending;
  expect(pending!.toolCalls[0]!.tool).toBe('filesystem/write_file');

  await stop(first, signal);
  expect(existsSync(join(dataDir, 'workspace', file))).toBe(false);

  const second = await serve(dataDir);
  const aliceAfter = await a2aClientAs(second.url, ALICE);
  const bobAfter = await a2aClientAs(second.url, BOB);
  // The same task, in the same state, with the same pending approval.
  const found = await aliceAfter.getTask({ tenant: '', id: taskId });
  expect(found.id).toBe(taskId);
  expect(found.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  expect(JSON.stringify(found.status?.message?.parts)).toContain(pending!.request_id);
  expect((await list(aliceAfter)).tasks.map((t) => t.id)).toEqual([taskId]);
  // Another caller neither lists nor finds it.
  expect((await list(bobAfter)).tasks).toEqual([]);
  await expect(bobAfter.getTask({ tenant: '', id: taskId })).rejects.toBeInstanceOf(TaskNotFoundError);

  // Resubscribe, then decide: the stream follows the task to its end.
  const resubscribed: StreamResponse[] = [];
  const following = (async () => {
    for await (const e of aliceAfter.resubscribeTask({ tenant: '', id: taskId })) resubscribed.push(e);
  })();
  await vi.waitFor(() => expect(resubscribed.length).toBeGreaterThan(0));
  expect(stateOf(resubscribed[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const decision = {
    request_id: pending!.request_id,
    decisions: Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'accept'])),
  };
  if (channel === '/api/approve') {
    const approved = await postJson(`${second.url}/api/approve`, decision, { authorization: `Bearer ${ALICE}` });
    expect(approved.status).toBe(200);
  } else {
    // A2A's own channel: a message on the task carrying the decision as a data part.
    const resumed = await collect(aliceAfter.sendMessageStream(send([data(decision)], { taskId })));
    expect(stateOf(resumed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  }
  await following;
  expect(stateOf(resubscribed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(
    resubscribed.some(
      (e) => e.payload?.$case === 'artifactUpdate' && e.payload.value.artifact?.artifactId === 'answer',
    ),
  ).toBe(true);
  const done = await aliceAfter.getTask({ tenant: '', id: taskId });
  expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(readFileSync(join(dataDir, 'workspace', file), 'utf8')).toBe(`written after ${signal}`);
  return { dataDir, taskId, second };
}

describe('an A2A task waiting on a human survives a restart', () => {
  it('kill -9: GetTask and ListTasks find it for its owner only, /api/approve finishes it, resubscribe sees the end', async () => {
    const { dataDir, taskId, second } = await approvalSurvives('SIGKILL', '/api/approve');
    // Finished tasks stay too: after another kill -9 it is still there, completed.
    await stop(second, 'SIGKILL');
    const third = await serve(dataDir);
    const alice = await a2aClientAs(third.url, ALICE);
    expect((await alice.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('SIGTERM: the task is left waiting, found again after the start, and a resume message on the task finishes it', async () => {
    await approvalSurvives('SIGTERM', 'a2a message');
  });
});

describe('an A2A task whose run cannot resume', () => {
  it('ends failed with the run’s reason after kill -9, never task-not-found', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    const alice = await a2aClientAs(first.url, ALICE);
    // A direct answer the model takes its time over: no plan to resume from.
    const stream = alice.sendMessageStream(send([text('think slowly [[route:direct]] [[latency:60000]]')]));
    const events = stream[Symbol.asyncIterator]();
    const firstEvent = await events.next();
    const taskId = taskIdOf([firstEvent.value as StreamResponse]);
    await vi.waitFor(async () =>
      expect((await alice.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_WORKING),
    );
    await stop(first, 'SIGKILL');
    await events.return?.(undefined).catch(() => undefined);

    const second = await serve(dataDir);
    const after = await a2aClientAs(second.url, ALICE);
    await vi.waitFor(
      async () =>
        expect((await after.getTask({ tenant: '', id: taskId })).status?.state).toBe(TaskState.TASK_STATE_FAILED),
      { timeout: 10_000 },
    );
    const failed = await after.getTask({ tenant: '', id: taskId });
    expect(JSON.stringify(failed.status?.message?.parts)).toMatch(/interrupted by a restart/);
  });
});
