import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbThreadStore } from '../../../src/store/threads/lmdb.ts';
import { threadStoreContract } from './threads.contract.ts';

threadStoreContract('lmdb', async (retention, now) => {
  const kv = openKv(':memory:');
  return { store: createLmdbThreadStore(kv, retention, now), close: () => kv.close() };
});

describe('lmdb thread store', () => {
  it('keeps a thread across a close and reopen of the same data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-threads-'));
    try {
      const retention = { maxThreadsPerCaller: 10, maxTurnsPerThread: 10, maxAgeMs: 60_000 };
      const first = openKv(dataDir);
      const turn = { runId: 'r1', at: 1, protocol: 'sse', user: 'hello', answer: 'hi', status: 'completed' };
      await createLmdbThreadStore(first, retention).appendTurn('alice', 't', turn);
      await first.close();
      const second = openKv(dataDir);
      expect((await createLmdbThreadStore(second, retention).getThread('alice', 't'))?.turns).toEqual([turn]);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('lmdb thread store: the last-use index of the per-caller cap', () => {
  const turn = (n: number) => ({ runId: `r${n}`, at: n, protocol: 'sse', user: `q${n}`, status: 'completed' });

  it('drops the least recently used threads at the cap, and keeps one index key per thread', async () => {
    const kv = openKv(':memory:');
    let clock = 1_000;
    const store = createLmdbThreadStore(
      kv,
      { maxThreadsPerCaller: 5, maxTurnsPerThread: 10, maxAgeMs: 1e9 },
      () => clock,
    );
    try {
      for (let n = 0; n < 5; n++, clock++) await store.appendTurn('alice', `t${n}`, turn(n));
      await store.appendTurn('alice', 't0', turn(5)); // t0 is now the most recently used
      clock++;
      for (let n = 6; n < 9; n++, clock++) await store.appendTurn('alice', `t${n}`, turn(n));
      expect((await store.listThreads('alice')).map((t) => t.threadId)).toEqual(['t8', 't7', 't6', 't0', 't4']);
      const keys = [...kv.db('thread-last-use').getKeys({})] as [string, number, string][];
      expect(keys.map((k) => k[2]).sort()).toEqual(['t0', 't4', 't6', 't7', 't8']);
    } finally {
      await kv.close();
    }
  });

  it('rebuilds the index of a data dir written before it, the least recently used thread dropped', async () => {
    const kv = openKv(':memory:');
    let clock = 1_000;
    const store = createLmdbThreadStore(
      kv,
      { maxThreadsPerCaller: 3, maxTurnsPerThread: 10, maxAgeMs: 1e9 },
      () => clock,
    );
    try {
      for (const id of ['b', 'a', 'c']) {
        await store.appendTurn('alice', id, turn(clock));
        clock++;
      }
      // As a data dir before the index: the summaries and turns, no last-use keys.
      const lastUse = kv.db('thread-last-use');
      await lastUse.transaction(() => {
        for (const key of [...lastUse.getKeys({})]) void lastUse.remove(key);
      });
      await store.appendTurn('alice', 'd', turn(clock));
      expect((await store.listThreads('alice')).map((t) => t.threadId)).toEqual(['d', 'c', 'a']);
      expect([...lastUse.getKeys({})].length).toBe(3);
    } finally {
      await kv.close();
    }
  });
});
