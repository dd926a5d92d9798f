/**
 * The approval broker over the run store (docs/durability.md): a request is listed only once committed,
 * a decision is committed before the run acts on it, a suspended run's request stays pending in the
 * store, and after a "restart" (a second broker on the reopened store) the request waits again under
 * its id and the resumed run's matching request adopts it, decision carried over to the new call id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { createLocalCluster } from '../../../src/cluster/local.ts';
import type { ApprovalRequest, ApprovalRequestInput } from '../../../src/hitl/types.ts';
import { openKv } from '../../../src/store/kv.ts';
import { openLmdbRunStore } from '../../../src/store/runs/lmdb/lmdb-run-store.ts';
import type { RunStore } from '../../../src/store/runs/run-store.ts';

const dirs: string[] = [];
const stores: RunStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(dir: string): RunStore {
  const store = openLmdbRunStore(openKv(dir));
  stores.push(store);
  return store;
}

const write = (toolCallId: string): ApprovalRequestInput => ({
  kind: 'tool',
  runId: 'run-1',
  callerId: 'alice',
  stepId: 's1',
  toolCalls: [{ toolCallId, tool: 'fs/write_file', args: { path: 'a.txt' }, reason: 'destructiveHint' }],
});

describe('approvals over the run store', () => {
  it('lists a request only once stored, and stores the decision before the run sees it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-approvals-'));
    dirs.push(dir);
    const store = open(dir);
    const broker = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny', store: store.approvals });
    const issued = broker.request(write('c1'));
    expect(broker.listPending()).toEqual([]);
    await issued.stored;
    expect(broker.listPending().map((r) => r.id)).toEqual([issued.request.id]);
    expect((await store.approvals.get(issued.request.id))?.status).toBe('pending');
    await broker.resolve(issued.request.id, { kind: 'tool', decisions: { c1: { type: 'accept' } } }, 'alice');
    await issued.outcome;
    expect(await store.approvals.get(issued.request.id)).toMatchObject({
      status: 'decided',
      outcome: { resolvedBy: 'human' },
    });
  });

  it('a suspended run keeps its request pending; after a restart it waits under the same id and is adopted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-approvals-'));
    dirs.push(dir);
    const first = open(dir);
    const before = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny', store: first.approvals });
    const issued = before.request(write('s1-call_A'));
    await issued.stored;
    before.suspendRun('run-1');
    await before.close();
    await first.close();

    const store = open(dir);
    const pending = await store.approvals.listPending();
    expect(pending.map((a) => a.id)).toEqual([issued.request.id]);
    const broker = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny', store: store.approvals });
    broker.restore(pending.map((a) => a.request as ApprovalRequest));
    expect(broker.listPending(undefined, { id: 'alice' }).map((r) => r.id)).toEqual([issued.request.id]);
    expect(broker.listPending(undefined, { id: 'bob' })).toEqual([]);

    // The human answers before the resumed step asks again: the answer waits for it.
    const answer = await broker.resolve(
      issued.request.id,
      { kind: 'tool', decisions: { 's1-call_A': { type: 'accept' } } },
      'alice',
      { id: 'alice' },
    );
    expect(answer.ok).toBe(true);
    const adopted = broker.request(write('s1-call_B'));
    expect(adopted.restored).toBe(true);
    expect(adopted.request.id).toBe(issued.request.id);
    const outcome = await adopted.outcome;
    expect(outcome.decision).toEqual({ kind: 'tool', decisions: { 's1-call_B': { type: 'accept' } } });
    expect((await store.approvals.get(issued.request.id))?.status).toBe('decided');
    // A different call is a new request, not the restored one.
    expect(broker.request({ ...write('s1-call_C'), stepId: 's2' }).restored).toBeUndefined();
    await broker.close();
  });
});

describe('approvals across replicas (two brokers on one store and one shared cluster)', () => {
  const shared = () => ({ ...createLocalCluster(), shared: true });
  const brokers = (store: RunStore) => {
    const cluster = shared();
    const options = { timeoutMs: 60_000, defaultDecision: 'deny' as const, store: store.approvals, cluster };
    return [new ApprovalBroker(options), new ApprovalBroker(options)] as const;
  };
  const accept = { kind: 'tool' as const, decisions: { c1: { type: 'accept' as const } } };

  it("B lists A's request and answers it; A's run gets the answer; the first answer wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-approvals-'));
    dirs.push(dir);
    const [a, b] = brokers(open(dir));
    const issued = a.request(write('c1'));
    await issued.stored;
    await new Promise((r) => setTimeout(r, 10));
    expect(b.listPending().map((r) => r.id)).toEqual([issued.request.id]);
    expect(b.get(issued.request.id, { id: 'bob', admin: false })).toBeUndefined();
    expect(await b.resolve(issued.request.id, accept, 'alice', { id: 'alice', admin: false })).toMatchObject({
      ok: true,
    });
    expect((await issued.outcome).decision).toEqual({ kind: 'tool', decisions: { c1: { type: 'accept' } } });
    expect(await a.resolve(issued.request.id, accept, 'alice')).toMatchObject({ ok: false, code: 'already_resolved' });
    expect(b.listPending()).toEqual([]);
  });

  it("an answer whose message to A was lost is applied at A's next sync from the store", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-approvals-'));
    dirs.push(dir);
    const store = open(dir);
    const [a] = brokers(store);
    const issued = a.request(write('c1'));
    await issued.stored;
    // Another replica committed its answer; the message never came.
    const outcome = {
      requestId: issued.request.id,
      decision: accept,
      resolvedBy: 'human',
      actor: 'bob',
      at: new Date().toISOString(),
    };
    await store.approvals.decide(issued.request.id, outcome);
    a.syncRemote((await store.approvals.listPending()).map((p) => p.request as ApprovalRequest));
    expect(await issued.outcome).toMatchObject({ decision: accept, actor: 'bob' });
    expect(a.listPending()).toEqual([]);
  });
});
