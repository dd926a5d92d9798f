/**
 * The RunStore contract: every backend runs this same suite (lmdb-run-store.test.ts now; the Postgres
 * backend of the next issue with its own opener). `open(place)` opens the backend on `place`; opening
 * the same place again after close must see everything a resolved write put there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunStore, StoredRun } from '../../../src/store/runs/run-store.ts';

export interface RunStoreBackend {
  /** A fresh, empty place to open the store on (a folder, a schema, …). */
  place(): string;
  open(place: string): Promise<RunStore>;
  /** Removes the place once the test is done. */
  remove(place: string): Promise<void> | void;
}

const run = (id: string, over: Partial<StoredRun> = {}): StoredRun => ({
  id,
  callerId: 'alice',
  threadId: `t-${id}`,
  status: 'running',
  request: { query: `question ${id}`, protocol: 'sse' },
  createdAt: 1000,
  updatedAt: 1000,
  ...over,
});

export function defineRunStoreContract(backend: RunStoreBackend): void {
  const opened: RunStore[] = [];
  const places: string[] = [];
  const open = async (place = backend.place()) => {
    if (!places.includes(place)) places.push(place);
    const store = await backend.open(place);
    opened.push(store);
    return { store, place };
  };
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    for (const p of places.splice(0)) await backend.remove(p);
  });

  describe('runs', () => {
    it('round-trips a run record and lists unfinished and finished ones apart', async () => {
      const { store } = await open();
      await store.runs.put(run('r1'));
      await store.runs.put(run('r2', { status: 'completed', updatedAt: 3000, ending: { status: 'completed' } }));
      await store.runs.put(run('r3', { status: 'failed', updatedAt: 2000 }));
      expect(await store.runs.get('r1')).toEqual(run('r1'));
      expect(await store.runs.get('nope')).toBeUndefined();
      expect((await store.runs.listUnfinished()).map((r) => r.id)).toEqual(['r1']);
      // Oldest finished first: the order retention drops them in.
      expect((await store.runs.listFinished()).map((r) => r.id)).toEqual(['r3', 'r2']);
      await store.runs.put(run('r1', { status: 'completed', updatedAt: 4000 }));
      expect(await store.runs.listUnfinished()).toEqual([]);
      expect((await store.runs.get('r1'))?.status).toBe('completed');
    });

    it('notes runs as remembered in one call, and writes nothing for a run it no longer has', async () => {
      const { store } = await open();
      const memory = { id: 'r1', query: 'question r1' };
      await store.runs.put(run('r1', { status: 'completed', memory, remembered: false }));
      await store.runs.put(run('r2', { status: 'completed', memory, remembered: false }));
      await store.runs.put(run('r3', { status: 'completed', memory, remembered: false }));
      await store.forget('r3');
      await store.runs.markRemembered(['r1', 'r3', 'nope']);
      expect(await store.runs.get('r1')).toEqual(run('r1', { status: 'completed', memory, remembered: true }));
      expect((await store.runs.get('r2'))?.remembered).toBe(false);
      // Retention forgot r3 before the note: it stays forgotten.
      expect(await store.runs.get('r3')).toBeUndefined();
      expect((await store.runs.listFinished()).map((r) => r.id).sort()).toEqual(['r1', 'r2']);
    });
  });

  describe('events', () => {
    it('appends in sequence and reads from a sequence on, with a limit', async () => {
      const { store } = await open();
      const events = Array.from({ length: 12 }, (_, i) => ({ seq: i + 1, type: 'step.delta', text: `d${i + 1}` }));
      await store.events.append('r1', events.slice(0, 5));
      await store.events.append('r1', events.slice(5));
      await store.events.append('r2', [{ seq: 1, type: 'run.started' }]);
      expect(await store.events.read('r1')).toEqual(events);
      expect((await store.events.read('r1', 10)).map((e) => e.seq)).toEqual([11, 12]);
      expect((await store.events.read('r1', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      // From inside one append into the next, cut by the limit.
      expect((await store.events.read('r1', 3, 4)).map((e) => e.seq)).toEqual([4, 5, 6, 7]);
      expect(await store.events.read('r1', 0, 0)).toEqual([]);
      expect(await store.events.read('r1', 12)).toEqual([]);
      expect(await store.events.read('r2')).toEqual([{ seq: 1, type: 'run.started' }]);
      expect(await store.events.read('unknown')).toEqual([]);
    });

    it("commits one run's appends in the order asked: once one resolves, every earlier one is readable", async () => {
      const { store } = await open();
      // The engine never awaits an append before the next: a reader elsewhere (a replica following the
      // run, the next start after kill -9) must never find seq N stored while an earlier one is not.
      const appends = Array.from({ length: 60 }, (_, i) =>
        store.events.append('r1', [{ seq: i + 1, type: 'step.delta', text: 'x'.repeat((i * 997) % 4000) }]),
      );
      await appends[29];
      expect((await store.events.read('r1')).slice(0, 30).map((e) => e.seq)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
      await Promise.all(appends);
      expect((await store.events.read('r1')).map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    });
  });

  describe('checkpoints', () => {
    it('keeps the latest plan and every finished step', async () => {
      const { store } = await open();
      expect(await store.checkpoints.load('r1')).toBeUndefined();
      await store.checkpoints.savePlan('r1', { steps: [{ id: 'a' }] }, 1);
      await store.checkpoints.saveStep('r1', { stepId: 'a', step: { id: 'a' }, outcome: { status: 'failed' } });
      await store.checkpoints.savePlan('r1', { steps: [{ id: 'a' }, { id: 'b' }] }, 2);
      await store.checkpoints.saveStep('r1', { stepId: 'a', step: { id: 'a' }, outcome: { status: 'succeeded' } });
      await store.checkpoints.saveStep('r1', { stepId: 'b', step: { id: 'b' }, outcome: { status: 'succeeded' } });
      await store.checkpoints.saveStep('r2', { stepId: 'x', step: {}, outcome: {} });
      const checkpoint = await store.checkpoints.load('r1');
      expect(checkpoint).toEqual({
        plan: { steps: [{ id: 'a' }, { id: 'b' }] },
        planRound: 2,
        steps: [
          { stepId: 'a', step: { id: 'a' }, outcome: { status: 'succeeded' } },
          { stepId: 'b', step: { id: 'b' }, outcome: { status: 'succeeded' } },
        ],
      });
    });
  });

  describe('approvals', () => {
    it('records pending requests under their ids, then their decisions', async () => {
      const { store } = await open();
      await store.approvals.putPending({
        id: 'ap1',
        runId: 'r1',
        callerId: 'alice',
        request: { kind: 'tool' },
        updatedAt: 1,
      });
      await store.approvals.putPending({
        id: 'ap2',
        runId: 'r1',
        callerId: 'alice',
        request: { kind: 'tool' },
        updatedAt: 2,
      });
      await store.approvals.putPending({
        id: 'ap3',
        runId: 'r2',
        callerId: 'bob',
        request: { kind: 'elicitation' },
        updatedAt: 3,
      });
      expect((await store.approvals.listPending()).map((a) => a.id).sort()).toEqual(['ap1', 'ap2', 'ap3']);
      await store.approvals.decide('ap1', { decision: 'accept' });
      await store.approvals.decide('unknown', { decision: 'accept' });
      expect(await store.approvals.get('ap1')).toMatchObject({ status: 'decided', outcome: { decision: 'accept' } });
      expect(await store.approvals.get('ap2')).toMatchObject({ status: 'pending', runId: 'r1', callerId: 'alice' });
      expect(await store.approvals.get('unknown')).toBeUndefined();
      expect((await store.approvals.listPending()).map((a) => a.id).sort()).toEqual(['ap2', 'ap3']);
      expect((await store.approvals.listForRun('r1')).map((a) => a.id).sort()).toEqual(['ap1', 'ap2']);
    });
  });

  describe('retention', () => {
    it('forgets everything of one run and nothing of another', async () => {
      const { store } = await open();
      for (const id of ['r1', 'r2']) {
        await store.runs.put(run(id));
        await store.events.append(id, [{ seq: 1, type: 'run.started' }]);
        await store.checkpoints.savePlan(id, { steps: [] }, 1);
        await store.checkpoints.saveStep(id, { stepId: 's', step: {}, outcome: {} });
        await store.approvals.putPending({ id: `ap-${id}`, runId: id, callerId: 'alice', request: {}, updatedAt: 1 });
      }
      await store.forget('r1');
      expect(await store.runs.get('r1')).toBeUndefined();
      expect(await store.events.read('r1')).toEqual([]);
      expect(await store.checkpoints.load('r1')).toBeUndefined();
      expect(await store.approvals.get('ap-r1')).toBeUndefined();
      expect(await store.approvals.listForRun('r1')).toEqual([]);
      expect(await store.runs.get('r2')).toBeDefined();
      expect(await store.events.read('r2')).toHaveLength(1);
      expect(await store.checkpoints.load('r2')).toBeDefined();
      expect(await store.approvals.get('ap-r2')).toBeDefined();
    });
  });

  describe('durability', () => {
    it('a reopened store sees every resolved write', async () => {
      const first = await open();
      await first.store.runs.put(run('r1'));
      await first.store.events.append('r1', [
        { seq: 1, type: 'run.started' },
        { seq: 2, type: 'plan.ready' },
      ]);
      await first.store.checkpoints.savePlan('r1', { steps: [{ id: 'a' }] }, 1);
      await first.store.approvals.putPending({ id: 'ap1', runId: 'r1', callerId: 'alice', request: {}, updatedAt: 1 });
      await first.store.close();
      const again = await open(first.place);
      expect(await again.store.runs.listUnfinished()).toEqual([run('r1')]);
      expect((await again.store.events.read('r1')).map((e) => e.seq)).toEqual([1, 2]);
      expect((await again.store.checkpoints.load('r1'))?.plan).toEqual({ steps: [{ id: 'a' }] });
      expect((await again.store.approvals.listPending()).map((a) => a.id)).toEqual(['ap1']);
    });
  });
}
