/**
 * A replica that really loses a run (docs/deployment.md, "Replicas"): replica A is cut off from Redis
 * alone (a TCP proxy between them, test/support/tcp-proxy.ts) long enough for B to take its run over;
 * when A is back, its renewal finds the lease B's and stops the run there — and the client streaming
 * from A reads on, from the shared store, to the run's end on B: every event once, under its seq. An
 * A2A task's subscriber on A reads on too, while B stores the task and sends its pushes from the move on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../../../src/hitl/types.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { TaskState } from '@a2a-js/sdk';
import { a2aClientAs, stateOf } from '../../../support/protocols/a2a-helpers.ts';
import {
  a2aTaskWaitingOn,
  follow,
  replicasMissing,
  startRun,
  subscribeOn,
  useReplicas,
  acceptAll,
  askedIn,
  seqs,
} from '../../../support/replicas.ts';
import { tcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';

const missing = replicasMissing();
if (missing) console.log(`lease-lost.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

const { replica, workspace, writeQuery, redisPort } = useReplicas('parley-lease-lost');

let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

describe.skipIf(missing !== undefined)('a run whose lease its replica lost', () => {
  it('goes on on the other replica, and the client streaming from the first reads on to its end', async () => {
    proxy = await tcpProxy(redisPort());
    const [a, b] = await Promise.all([replica({ PARLEY_REDIS_URL: `redis://127.0.0.1:${proxy.port}` }), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('moved.txt', 'written on B'), mode: 'orchestrate' },
      'approval.requested',
    );
    const asked = askedIn(run.events);
    // An A2A task too, its subscriber on A: A stores the task and sends its pushes until the run moves.
    const task = await a2aTaskWaitingOn(a.url, writeQuery('task.txt', 'task on B'));
    const subscribed = await subscribeOn(a.url, task.taskId);
    await vi.waitFor(() => expect(subscribed.events.length).toBeGreaterThan(0));

    // A alone loses Redis: its lease expires, B sees it missing for a whole lease and takes the run over.
    proxy.cut();
    const cutAt = Date.now();
    await vi.waitFor(() => expect(b.log().split('taking over a run').length - 1).toBe(2), {
      timeout: 30_000,
      interval: 100,
    });
    console.log(`lease-lost.test.ts: B took the run over ${Date.now() - cutAt} ms after A was cut off (lease 2000 ms)`);
    // A is back: its next renewal finds the lease B's, and A stops the run as it is.
    proxy.mend();
    await vi.waitFor(() => expect(a.log().split('lost the lease of a run').length - 1).toBe(2), {
      timeout: 30_000,
      interval: 100,
    });
    // The approval waits on B under the same id; answered there, the run ends there.
    await vi.waitFor(async () => {
      const listed = (await (await fetch(`${b.url}/api/approvals`)).json()) as { approvals: ApprovalRequest[] };
      expect(listed.approvals.map((r) => r.id).sort()).toEqual([asked.id, task.requestId].sort());
    });
    const answer = await postJson(`${b.url}/api/approve`, { request_id: asked.id, decisions: acceptAll(asked) });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const taskAnswer = await postJson(`${b.url}/api/approve`, {
      request_id: task.requestId,
      decisions: task.decisions,
    });
    expect(taskAnswer.status, await taskAnswer.clone().text()).toBe(200);

    // The stream from A was never cut: it read on to run.finished, every event once and in order.
    await run.done;
    expect(run.state.error).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(seqs(run.events)).toEqual(run.events.map((_, n) => n + 1));
    expect(readFileSync(join(workspace, 'moved.txt'), 'utf8')).toBe('written on B');
    // A client reconnecting to A reads the same run, ended (served from the store, not A's stopped copy).
    const again = follow(await fetch(`${a.url}/api/runs/${run.runId}/events`));
    await again.done;
    expect(again.events.map((e) => [e.seq, e.type])).toEqual(run.events.map((e) => [e.seq, e.type]));
    // The A2A subscriber on A read on to the end; the task, stored by B from the move on, says so on both
    // (A's subscriber reads the run's log, B stores the task from it: either may be first).
    await subscribed.done;
    expect(stateOf(subscribed.events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    for (const url of [a.url, b.url]) {
      const client = await a2aClientAs(url, '');
      await vi.waitFor(async () => {
        const stored = await client.getTask({ tenant: '', id: task.taskId });
        expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        const ids = (stored.history ?? []).map((m) => m.messageId);
        expect(new Set(ids).size, 'no message stored twice').toBe(ids.length);
      });
    }
    expect(readFileSync(join(workspace, 'task.txt'), 'utf8')).toBe('task on B');
    expect(a.log() + b.log()).not.toMatch(/unhandled error|run pump failed/);
  });
});
