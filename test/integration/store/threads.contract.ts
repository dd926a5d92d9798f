/**
 * The ThreadStore contract: every backend (the embedded LMDB one today, Postgres in issue 17) runs it.
 * `open` gets the retention and a clock the suite moves; it returns a fresh, empty store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_THREAD_ID_CHARS,
  type ThreadRetention,
  type ThreadStore,
  type ThreadTurn,
} from '../../../src/store/threads/types.ts';

export interface OpenedThreadStore {
  store: ThreadStore;
  close(): Promise<void>;
}

export type OpenThreadStore = (retention: ThreadRetention, now: () => number) => Promise<OpenedThreadStore>;

const RETENTION: ThreadRetention = { maxThreadsPerCaller: 100, maxTurnsPerThread: 50, maxAgeMs: 60_000 };

const turn = (n: number, extra: Partial<ThreadTurn> = {}): ThreadTurn => ({
  runId: `run-${n}`,
  at: 1000 + n,
  protocol: 'sse',
  user: `question ${n}`,
  answer: `answer ${n}`,
  status: 'completed',
  ...extra,
});

export function threadStoreContract(name: string, open: OpenThreadStore): void {
  describe(`ThreadStore contract: ${name}`, () => {
    let clock = 1_000_000;
    const now = () => clock;
    const opened: OpenedThreadStore[] = [];
    const make = async (retention: Partial<ThreadRetention> = {}) => {
      const o = await open({ ...RETENTION, ...retention }, now);
      opened.push(o);
      return o.store;
    };
    afterEach(async () => {
      for (const o of opened.splice(0)) await o.close();
      clock = 1_000_000;
    });

    it('appends turns in order and reads them back with the summary', async () => {
      const store = await make();
      const steps = [{ id: 's1', specialist: 'web', status: 'succeeded', summary: 'found it' }];
      await store.appendTurn('alice', 't1', turn(1, { steps, images: 2 }));
      clock += 10;
      await store.appendTurn('alice', 't1', turn(2));
      const thread = await store.getThread('alice', 't1');
      expect(thread).toMatchObject({
        threadId: 't1',
        turnCount: 2,
        createdAt: 1_000_000,
        updatedAt: 1_000_010,
        title: 'question 1',
      });
      expect(thread!.turns).toEqual([turn(1, { steps, images: 2 }), turn(2)]);
    });

    it("never shows one caller another caller's thread of the same id", async () => {
      const store = await make();
      await store.appendTurn('alice', 'shared', turn(1));
      await store.appendTurn('bob', 'shared', turn(2));
      expect((await store.getThread('alice', 'shared'))!.turns.map((t) => t.runId)).toEqual(['run-1']);
      expect((await store.getThread('bob', 'shared'))!.turns.map((t) => t.runId)).toEqual(['run-2']);
      expect(await store.getThread('carol', 'shared')).toBeUndefined();
      expect(await store.listThreads('carol')).toEqual([]);
      expect(await store.deleteThread('carol', 'shared')).toBe(false);
      expect(await store.getThread('alice', 'shared')).toBeDefined();
    });

    it("lists a caller's threads, most recently updated first, with a limit", async () => {
      const store = await make();
      await store.appendTurn('alice', 'a', turn(1));
      clock += 1;
      await store.appendTurn('alice', 'b', turn(2));
      clock += 1;
      await store.appendTurn('alice', 'a', turn(3));
      // A caller id that is a prefix of another's stays apart.
      await store.appendTurn('alice2', 'c', turn(4));
      const list = await store.listThreads('alice');
      expect(list.map((t) => [t.threadId, t.turnCount])).toEqual([
        ['a', 2],
        ['b', 1],
      ]);
      expect((await store.listThreads('alice', { limit: 1 })).map((t) => t.threadId)).toEqual(['a']);
    });

    it('deletes a thread with its turns; a new turn under the id starts afresh', async () => {
      const store = await make();
      await store.appendTurn('alice', 't', turn(1));
      expect(await store.deleteThread('alice', 't')).toBe(true);
      expect(await store.getThread('alice', 't')).toBeUndefined();
      expect(await store.deleteThread('alice', 't')).toBe(false);
      await store.appendTurn('alice', 't', turn(2));
      expect((await store.getThread('alice', 't'))!.turns.map((t) => t.runId)).toEqual(['run-2']);
    });

    it('keeps at most maxTurnsPerThread turns, dropping the oldest', async () => {
      const store = await make({ maxTurnsPerThread: 3 });
      for (let n = 1; n <= 5; n++) await store.appendTurn('alice', 't', turn(n));
      const thread = await store.getThread('alice', 't');
      expect(thread!.turns.map((t) => t.runId)).toEqual(['run-3', 'run-4', 'run-5']);
      expect(thread!.turnCount).toBe(5);
    });

    it('keeps at most maxThreadsPerCaller threads per caller, the least recently updated dropped', async () => {
      const store = await make({ maxThreadsPerCaller: 2 });
      await store.appendTurn('alice', 'old', turn(1));
      clock += 1;
      await store.appendTurn('alice', 'mid', turn(2));
      clock += 1;
      await store.appendTurn('alice', 'old', turn(3));
      clock += 1;
      await store.appendTurn('bob', 'x', turn(4));
      await store.appendTurn('alice', 'new', turn(5));
      expect((await store.listThreads('alice')).map((t) => t.threadId)).toEqual(['new', 'old']);
      expect(await store.getThread('alice', 'mid')).toBeUndefined();
      expect((await store.listThreads('bob')).map((t) => t.threadId)).toEqual(['x']);
    });

    it('forgets threads older than maxAgeMs: never returned, swept, and a new turn starts afresh', async () => {
      const store = await make({ maxAgeMs: 1000 });
      await store.appendTurn('alice', 'stale', turn(1));
      await store.appendTurn('alice', 'revived', turn(2));
      clock += 600;
      await store.appendTurn('alice', 'fresh', turn(3));
      clock += 600;
      expect(await store.getThread('alice', 'stale')).toBeUndefined();
      expect((await store.listThreads('alice')).map((t) => t.threadId)).toEqual(['fresh']);
      await store.appendTurn('alice', 'revived', turn(4));
      expect((await store.getThread('alice', 'revived'))!.turns.map((t) => t.runId)).toEqual(['run-4']);
      expect(await store.sweep()).toBe(1);
      expect(await store.sweep()).toBe(0);
      expect((await store.listThreads('alice')).map((t) => t.threadId).sort()).toEqual(['fresh', 'revived']);
    });

    it('refuses to store a thread id longer than MAX_THREAD_ID_CHARS, and never finds one', async () => {
      const store = await make();
      const long = 'x'.repeat(MAX_THREAD_ID_CHARS + 1);
      await expect(store.appendTurn('alice', long, turn(1))).rejects.toThrow(RangeError);
      expect(await store.getThread('alice', long)).toBeUndefined();
      expect(await store.deleteThread('alice', long)).toBe(false);
      const longest = 'é'.repeat(MAX_THREAD_ID_CHARS);
      await store.appendTurn('alice', longest, turn(2));
      expect((await store.getThread('alice', longest))!.turns).toHaveLength(1);
    });

    it('keeps concurrent appends to one thread, none lost', async () => {
      const store = await make();
      await Promise.all(Array.from({ length: 20 }, (_, n) => store.appendTurn('alice', 't', turn(n))));
      const thread = await store.getThread('alice', 't');
      expect(thread!.turnCount).toBe(20);
      expect(new Set(thread!.turns.map((t) => t.runId)).size).toBe(20);
    });
  });
}
