/**
 * Several `parley serve` processes on one Postgres and one Redis act as one server (issue 17,
 * docs/deployment.md "Replicas"): approvals, followers, cancels and runs cross replicas, and a replica
 * killed with kill -9 has its runs taken over by a live one once its lease (2 s here) expires.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest } from '../../../../src/hitl/types.ts';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';
import { openPool } from '../../../../src/store/postgres/pool.ts';
import { openPostgresRunStore } from '../../../../src/store/postgres/run-store.ts';
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

const missing = replicasMissing();
if (missing) console.log(`replicas.test.ts: ${missing}`);
else console.log('replicas.test.ts: each replica has its own embedded knowledge graph (no NEO4J_URI)');
vi.setConfig({ testTimeout: 120_000 });

const { replica, workspace, writeQuery, databaseUrl } = useReplicas('parley-replicas');

const approvals = async (url: string) =>
  ((await (await fetch(`${url}/api/approvals`)).json()) as { approvals: ApprovalRequest[] }).approvals;

describe.skipIf(missing !== undefined)('replicas on Postgres and Redis', () => {
  it('an approval asked on A is listed and answered on B; A goes on; a follower on B sees the end and can reconnect to A', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('one.txt', 'from A'), mode: 'orchestrate' },
      'approval.requested',
    );
    const request = askedIn(run.events);
    // A follower on B, from the start.
    const onB = follow(await fetch(`${b.url}/api/runs/${run.runId}/events`));
    await vi.waitFor(async () => expect((await approvals(b.url)).map((r) => r.id)).toEqual([request.id]));
    const answered = await postJson(`${b.url}/api/approve`, { request_id: request.id, decisions: acceptAll(request) });
    expect(answered.status).toBe(200);
    // The first answer wins on every replica.
    const late = await postJson(`${a.url}/api/approve`, { request_id: request.id, decisions: acceptAll(request) });
    expect(late.status).toBe(409);
    await run.done;
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(readFileSync(join(workspace, 'one.txt'), 'utf8')).toBe('from A');
    await onB.done;
    // B's follower saw every event A's own stream did, in order.
    expect(seqs(onB.events)).toEqual(seqs(run.events));
    expect(onB.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // Reconnecting with Last-Event-ID to either replica goes on after that event.
    const cut = onB.events[5]!.seq;
    for (const url of [a.url, b.url]) {
      const again = follow(
        await fetch(`${url}/api/runs/${run.runId}/events`, { headers: { 'last-event-id': String(cut) } }),
      );
      await again.done;
      expect(seqs(again.events)).toEqual(seqs(run.events).filter((s) => s > cut));
    }
    expect((await approvals(a.url)).length + (await approvals(b.url)).length).toBe(0);
    // The finished run answers on every replica (B's own execution memory never saw it: from Postgres).
    for (const url of [a.url, b.url]) {
      const detail = await fetch(`${url}/api/runs/${run.runId}`);
      expect(detail.status, url).toBe(200);
      expect(await detail.json()).toMatchObject({ id: run.runId, status: 'completed' });
    }
  });

  it('a cancel sent to B stops the run executing on A', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const run = await startRun(
      a.url,
      { query: writeQuery('never.txt', 'no'), mode: 'orchestrate' },
      'approval.requested',
    );
    await vi.waitFor(async () => expect(await approvals(b.url)).toHaveLength(1));
    const cancelled = await fetch(`${b.url}/stream/${run.runId}/cancel`, { method: 'POST' });
    // B answers once A has ended the run, and says how it ended.
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toEqual({ runId: run.runId, cancelled: true, status: 'cancelled' });
    await run.done;
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled' });
    expect(existsSync(join(workspace, 'never.txt'))).toBe(false);
    await vi.waitFor(async () => expect(await approvals(b.url)).toHaveLength(0));
    // Again, on either replica: the run had already ended.
    for (const url of [a.url, b.url]) {
      const again = await fetch(`${url}/stream/${run.runId}/cancel`, { method: 'POST' });
      expect(again.status, url).toBe(409);
      expect(await again.json()).toEqual({ runId: run.runId, cancelled: false, status: 'cancelled' });
    }
  });

  it('a replica that started after a run finished elsewhere replays its events from Postgres, and a cancel there says it had ended', async () => {
    const a = await replica();
    const run = await startRun(a.url, { query: 'hello there' }, 'run.finished');
    await run.done;
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // C never saw the run: not followed, not retained.
    const c = await replica();
    const replay = follow(await fetch(`${c.url}/api/runs/${run.runId}/events`));
    await replay.done;
    expect(replay.events).toEqual(run.events);
    const json = await fetch(`${c.url}/api/runs/${run.runId}/events?after=2`, {
      headers: { accept: 'application/json' },
    });
    expect(json.status).toBe(200);
    expect(seqs((await json.json()) as GraphEvent[])).toEqual(seqs(run.events).filter((s) => s > 2));
    const cancel = await fetch(`${c.url}/stream/${run.runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toEqual({ runId: run.runId, cancelled: false, status: 'completed' });
    // An id no replica knows is still a 404.
    expect((await fetch(`${c.url}/api/runs/no-such-run/events`)).status).toBe(404);
  });

  it('kill -9 of A: B takes its runs over once the lease expires, the approval waits under the same id, nothing told is lost', async () => {
    // A is slow, so the busy run is still in its steps when A dies (one already writing its answer
    // could not resume: docs/durability.md); B is quick to finish it.
    const a = await replica({ PARLEY_SCRIPTED_LATENCY_MS: '1500' });
    const b = await replica({ PARLEY_SCRIPTED_LATENCY_MS: '200' });
    const waiting = await startRun(
      a.url,
      { query: writeQuery('after.txt', 'taken over'), mode: 'orchestrate' },
      'approval.requested',
    );
    const busy = await startRun(
      a.url,
      { query: 'Compare the rivers of Europe [[steps:3]]', mode: 'orchestrate' },
      'plan.ready',
    );
    const request = askedIn(waiting.events);
    const followers = [
      follow(await fetch(`${b.url}/api/runs/${waiting.runId}/events`)),
      follow(await fetch(`${b.url}/api/runs/${busy.runId}/events`)),
    ];
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await a.exit;
    await vi.waitFor(() => expect(b.log()).toContain('taking over a run'), { timeout: 30_000 });
    const takeoverMs = Date.now() - killedAt;
    console.log(`replicas.test.ts: runs taken over ${takeoverMs} ms after kill -9 (lease 2000 ms)`);
    // The run waits under the same approval id, asked once (the resumed step adopted it).
    const listed = await approvals(b.url);
    expect(listed.map((r) => [r.runId, r.id])).toEqual([[waiting.runId, request.id]]);
    expect(
      (await postJson(`${b.url}/api/approve`, { request_id: request.id, decisions: acceptAll(request) })).status,
    ).toBe(200);
    await Promise.all(followers.map((f) => f.done));
    for (const [i, f] of followers.entries()) {
      expect(f.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
      // Every event A's client was told is in B's log under the same seq.
      const told = [waiting, busy][i]!.events;
      expect(f.events.slice(0, told.length).map((e) => [e.seq, e.type])).toEqual(told.map((e) => [e.seq, e.type]));
      expect(seqs(f.events)).toEqual(f.events.map((_, n) => n + 1));
    }
    expect(readFileSync(join(workspace, 'after.txt'), 'utf8')).toBe('taken over');
  });
});

describe.skipIf(missing !== undefined)('a rolling deploy', () => {
  it('SIGTERM of A: after its grace period its running run goes on from its checkpoint on B', async () => {
    // A run longer than A's grace period: A suspends it (checkpointed) and frees its lease.
    const a = await replica({ PARLEY_SCRIPTED_LATENCY_MS: '1500', PARLEY_SHUTDOWN_TIMEOUT_MS: '300' });
    const b = await replica({ PARLEY_SCRIPTED_LATENCY_MS: '200' });
    const run = await startRun(
      a.url,
      { query: 'Compare the lakes of Finland and the rivers of Norway [[steps:3]]', mode: 'orchestrate' },
      'plan.ready',
    );
    const onB = follow(await fetch(`${b.url}/api/runs/${run.runId}/events`));
    const t0 = Date.now();
    a.child.kill('SIGTERM');
    expect((await a.exit).code).toBe(0);
    const exitMs = Date.now() - t0;
    await onB.done;
    console.log(`replicas.test.ts: A exited ${exitMs} ms after SIGTERM; B finished its run`);
    expect(b.log()).toContain('taking over a run');
    expect(onB.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(seqs(onB.events)).toEqual(onB.events.map((_, n) => n + 1));
    // The steps A interrupted are not announced as finished (they were not): each step finishes once, succeeded.
    const finished = onB.events.filter((e): e is GraphEvent & { type: 'step.finished' } => e.type === 'step.finished');
    expect(finished.map((e) => e.status)).toEqual(finished.map(() => 'succeeded'));
    expect(new Set(finished.map((e) => e.stepId)).size).toBe(finished.length);
    expect(finished.length).toBeGreaterThan(0);
  });
});

describe.skipIf(missing !== undefined)('limits shared by replicas', () => {
  const run = (url: string, query: string) => postJson(`${url}/stream`, { query, mode: 'direct' });

  it('the per-minute rate limit counts the runs started on every replica', async () => {
    const [a, b] = await Promise.all([
      replica({ PARLEY_RATE_LIMIT_PER_MINUTE: '3' }),
      replica({ PARLEY_RATE_LIMIT_PER_MINUTE: '3' }),
    ]);
    for (const url of [a.url, b.url, a.url]) {
      const res = await run(url, 'What is a river?');
      expect(res.status).toBe(200);
      await follow(res).done;
    }
    await new Promise((r) => setTimeout(r, 500)); // the last start reaches the other replica
    const refused = await run(b.url, 'What is a lake?');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("a caller's token budget holds across replicas: refused once the runs on both together spent it", async () => {
    const budget = 800;
    const env = { PARLEY_CALLER_MAX_TOKENS: String(budget) };
    const [a, b] = await Promise.all([replica(env), replica(env)]);
    const spent: number[] = [];
    let refusedOn: string | undefined;
    let refusal = '';
    for (let i = 0; i < 40 && !refusedOn; i++) {
      const url = i % 2 === 0 ? a.url : b.url;
      const res = await run(url, `Tell me about river number ${i}`);
      if (res.status === 429) {
        refusedOn = url;
        refusal = await res.text();
        break;
      }
      const { events, done } = follow(res);
      await done;
      const end = events.at(-1) as GraphEvent & { type: 'run.finished' };
      if (end.status === 'blocked') {
        refusedOn = url;
        refusal = end.error ?? '';
      } else spent.push(end.usage.inputTokens + end.usage.outputTokens);
      await new Promise((r) => setTimeout(r, 100)); // the charge reaches the other replica
    }
    const total = spent.reduce((x, y) => x + y, 0);
    console.log(
      `replicas.test.ts: ${spent.length} runs spent ${total} tokens of ${budget} across 2 replicas, then refused`,
    );
    expect(refusedOn).toBeDefined();
    // Refused by the caller's token budget, not by anything else.
    expect(refusal).toMatch(/caller token budget/);
    expect(spent.length).toBeGreaterThan(1);
    // Alone, each replica would have let the caller spend the whole budget again.
    expect(total).toBeLessThanOrEqual(budget + Math.max(...spent));
  });
});

describe.skipIf(missing !== undefined)('A2A tasks across replicas', () => {
  it('a task waiting on A is found on B; after kill -9 of A, B takes its run and task over and finishes it', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const task = await a2aTaskWaitingOn(a.url, writeQuery('a2a.txt', 'via A2A'));
    const onB = await a2aClientAs(b.url, '');
    expect((await onB.getTask({ tenant: '', id: task.taskId })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );

    a.child.kill('SIGKILL');
    await a.exit;
    await vi.waitFor(() => expect(b.log()).toContain('a2a: following a task taken over'), { timeout: 30_000 });
    const resubscribed = await subscribeOn(b.url, task.taskId);
    await vi.waitFor(() => expect(resubscribed.events.length).toBeGreaterThan(0));
    expect(stateOf(resubscribed.events[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = { request_id: task.requestId, decisions: task.decisions };
    expect((await postJson(`${b.url}/api/approve`, answer)).status).toBe(200);
    await resubscribed.done;
    expect(stateOf(resubscribed.events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await onB.getTask({ tenant: '', id: task.taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(readFileSync(join(workspace, 'a2a.txt'), 'utf8')).toBe('via A2A');
  });
});

describe.skipIf(missing !== undefined)('left-overs in the shared store', () => {
  it('a pending approval of a run that already ended (its replica died before committing the cancel) is never listed', async () => {
    const a = await replica();
    // What such a death leaves: the run recorded as ended, its approval still pending.
    const pool = await openPool({ url: databaseUrl() });
    const store = openPostgresRunStore(pool, { closePool: true });
    try {
      await store.runs.put({
        id: 'ended-run',
        callerId: 'anonymous',
        threadId: 't',
        status: 'cancelled',
        request: { query: 'q' },
        createdAt: Date.now() - 60_000,
        updatedAt: Date.now() - 60_000,
        ending: { status: 'cancelled' },
      });
      await store.approvals.putPending({
        id: 'orphan-approval',
        runId: 'ended-run',
        callerId: 'anonymous',
        request: { id: 'orphan-approval', kind: 'tool', runId: 'ended-run', toolCalls: [] },
        updatedAt: Date.now() - 60_000,
      });
    } finally {
      await store.close();
    }
    // The next sweep (every half lease) reads the store: still nothing listed.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await approvals(a.url)).toEqual([]);
  });
});
