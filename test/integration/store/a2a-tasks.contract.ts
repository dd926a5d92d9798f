/**
 * The A2ATaskStore contract: every backend (LMDB and memory today, Postgres in issue 17) runs it.
 * `open` gets the retention and returns a fresh, empty store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_TASK_KEY_CHARS,
  type A2ATaskRetention,
  type A2ATaskStore,
  type StoredTask,
  type TaskScope,
} from '../../../src/store/a2a-tasks/types.ts';

export interface OpenedA2ATaskStore {
  store: A2ATaskStore;
  close(): Promise<void>;
}

export type OpenA2ATaskStore = (retention: A2ATaskRetention) => Promise<OpenedA2ATaskStore>;

const ALICE: TaskScope = { tenant: '', owner: 'alice' };
const BOB: TaskScope = { tenant: '', owner: 'bob' };

/** A task as the adapter stores it; `n` orders status timestamps (a larger n is newer). */
function task(id: string, n: number, extra: Partial<StoredTask> = {}): StoredTask {
  const terminal = extra.terminal ?? true;
  const state = extra.state ?? (terminal ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING');
  const statusTimestamp = extra.statusTimestamp ?? new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id,
    contextId: 'ctx',
    state,
    statusTimestamp,
    terminal,
    task: {
      id,
      contextId: extra.contextId ?? 'ctx',
      status: { state, timestamp: statusTimestamp },
      artifacts: [{ n }],
    },
    ...extra,
  };
}

const ids = (tasks: StoredTask[]) => tasks.map((t) => t.id);

export function a2aTaskStoreContract(name: string, open: OpenA2ATaskStore): void {
  describe(`A2ATaskStore contract: ${name}`, () => {
    const opened: OpenedA2ATaskStore[] = [];
    const make = async (maxFinished = 100) => {
      const o = await open({ maxFinished });
      opened.push(o);
      return o.store;
    };
    afterEach(async () => {
      for (const o of opened.splice(0)) await o.close();
    });

    it('puts and gets a task as given, and replaces it on the next put', async () => {
      const store = await make();
      const first = task('t1', 1, { terminal: false });
      await store.put(ALICE, first);
      expect(await store.get(ALICE, 't1')).toEqual(first);
      const done = task('t1', 2);
      await store.put(ALICE, done);
      expect(await store.get(ALICE, 't1')).toEqual(done);
      expect(await store.get(ALICE, 'nope')).toBeUndefined();
    });

    it("never shows one scope another scope's task of the same id (owner and tenant)", async () => {
      const store = await make();
      await store.put(ALICE, task('same', 1));
      await store.put(BOB, task('same', 2, { contextId: 'bob' }));
      await store.put({ tenant: 'acme', owner: 'alice' }, task('other', 3));
      expect((await store.get(ALICE, 'same'))!.statusTimestamp).toBe(task('same', 1).statusTimestamp);
      expect((await store.get(BOB, 'same'))!.contextId).toBe('bob');
      expect(await store.get({ tenant: '', owner: 'carol' }, 'same')).toBeUndefined();
      expect(await store.get(ALICE, 'other')).toBeUndefined();
      // An owner whose name is a prefix of another's stays apart.
      expect((await store.list({ tenant: '', owner: 'ali' }, { pageSize: 10 })).total).toBe(0);
      await store.put({ tenant: '', owner: 'alice2' }, task('x', 4));
      expect(ids((await store.list(ALICE, { pageSize: 10 })).tasks)).toEqual(['same']);
      expect(ids((await store.list({ tenant: 'acme', owner: 'alice' }, { pageSize: 10 })).tasks)).toEqual(['other']);
    });

    it('lists newest status first (then id descending), with context, state and time filters', async () => {
      const store = await make();
      await store.put(ALICE, task('a', 1));
      await store.put(ALICE, task('b', 3, { contextId: 'other' }));
      await store.put(ALICE, task('c', 2, { terminal: false }));
      await store.put(ALICE, task('d', 2, { state: 'TASK_STATE_FAILED' }));
      const all = await store.list(ALICE, { pageSize: 10 });
      expect(ids(all.tasks)).toEqual(['b', 'd', 'c', 'a']);
      expect(all).toMatchObject({ total: 4, more: false });
      expect(ids((await store.list(ALICE, { pageSize: 10, contextId: 'other' })).tasks)).toEqual(['b']);
      expect(ids((await store.list(ALICE, { pageSize: 10, state: 'TASK_STATE_WORKING' })).tasks)).toEqual(['c']);
      const after = task('x', 1).statusTimestamp;
      expect(ids((await store.list(ALICE, { pageSize: 10, statusAfter: after })).tasks)).toEqual(['b', 'd', 'c']);
      expect((await store.list(ALICE, { pageSize: 10, statusAfter: 'not a time' })).total).toBe(0);
    });

    it('pages with a cursor through every task once; a cursor no longer in the list gives an empty page', async () => {
      const store = await make();
      for (let n = 1; n <= 5; n++) await store.put(ALICE, task(`t${n}`, n));
      const first = await store.list(ALICE, { pageSize: 2 });
      expect(first).toMatchObject({ total: 5, more: true });
      expect(ids(first.tasks)).toEqual(['t5', 't4']);
      const cursor = (t: StoredTask) => ({ statusTimestamp: t.statusTimestamp, id: t.id });
      const second = await store.list(ALICE, { pageSize: 2, after: cursor(first.tasks[1]!) });
      expect(ids(second.tasks)).toEqual(['t3', 't2']);
      const third = await store.list(ALICE, { pageSize: 2, after: cursor(second.tasks[1]!) });
      expect(third).toMatchObject({ total: 5, more: false });
      expect(ids(third.tasks)).toEqual(['t1']);
      expect((await store.list(ALICE, { pageSize: 2, after: { statusTimestamp: 'x', id: 'gone' } })).tasks).toEqual([]);
    });

    it('keeps at most maxFinished finished tasks over every scope, the first finished dropped first', async () => {
      const store = await make(2);
      await store.put(ALICE, task('one', 1));
      await store.put(BOB, task('two', 2));
      // A finished task saved again keeps its place.
      await store.put(ALICE, task('one', 5));
      await store.put(ALICE, task('three', 3));
      expect(await store.get(ALICE, 'one')).toBeUndefined();
      expect(await store.get(BOB, 'two')).toBeDefined();
      expect(await store.get(ALICE, 'three')).toBeDefined();
      await store.put(BOB, task('four', 4));
      expect(await store.get(BOB, 'two')).toBeUndefined();
      expect((await store.list(ALICE, { pageSize: 10 })).total + (await store.list(BOB, { pageSize: 10 })).total).toBe(
        2,
      );
    });

    it('never drops a task that is not terminal; it joins the queue once it finishes', async () => {
      const store = await make(1);
      await store.put(ALICE, task('live', 1, { terminal: false, state: 'TASK_STATE_INPUT_REQUIRED' }));
      for (const id of ['a', 'b', 'c']) await store.put(ALICE, task(id, 2));
      expect((await store.get(ALICE, 'live'))!.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(ids((await store.list(ALICE, { pageSize: 10 })).tasks)).toEqual(['c', 'live']);
      await store.put(ALICE, task('live', 3));
      expect(await store.get(ALICE, 'c')).toBeUndefined();
      expect((await store.get(ALICE, 'live'))!.terminal).toBe(true);
    });

    it('lists every unfinished task over every scope, with its scope', async () => {
      const store = await make();
      await store.put(ALICE, task('w', 1, { terminal: false }));
      await store.put(
        { tenant: 'acme', owner: 'bob' },
        task('i', 2, { terminal: false, state: 'TASK_STATE_INPUT_REQUIRED' }),
      );
      await store.put(ALICE, task('done', 3));
      const unfinished = await store.listUnfinished();
      expect(unfinished.map((t) => [t.id, t.scope]).sort()).toEqual([
        ['i', { tenant: 'acme', owner: 'bob' }],
        ['w', ALICE],
      ]);
    });

    it('records the run seq a task reflects; a put without one keeps it', async () => {
      const store = await make();
      await store.setRunSeq(ALICE, 'unknown', 3);
      expect(await store.get(ALICE, 'unknown')).toBeUndefined();
      await store.put(ALICE, task('t', 1, { terminal: false }));
      expect((await store.get(ALICE, 't'))!.runSeq).toBeUndefined();
      await store.setRunSeq(ALICE, 't', 7);
      await store.put(ALICE, task('t', 2, { terminal: false }));
      expect((await store.get(ALICE, 't'))!.runSeq).toBe(7);
      expect((await store.listUnfinished())[0]!.runSeq).toBe(7);
      await store.put(ALICE, task('t', 3, { runSeq: 9 }));
      expect((await store.get(ALICE, 't'))!.runSeq).toBe(9);
    });

    it('refuses keys longer than the limit and never finds them', async () => {
      const store = await make();
      const long = 'x'.repeat(MAX_TASK_KEY_CHARS + 1);
      await expect(store.put(ALICE, task(long, 1))).rejects.toBeInstanceOf(RangeError);
      await expect(store.put({ tenant: long, owner: 'a' }, task('t', 1))).rejects.toBeInstanceOf(RangeError);
      expect(await store.get(ALICE, long)).toBeUndefined();
      expect((await store.list({ tenant: long, owner: 'a' }, { pageSize: 1 })).total).toBe(0);
      // At the limit, with multi-byte characters, it fits.
      const wide = '€'.repeat(MAX_TASK_KEY_CHARS);
      await store.put({ tenant: wide, owner: wide }, task(wide, 1));
      expect((await store.get({ tenant: wide, owner: wide }, wide))!.id).toBe(wide);
    });
  });
}
