/** The RunStore contract on the embedded LMDB backend (the data dir's `store` environment). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';
import { openLmdbRunStore } from '../../../src/store/runs/lmdb/lmdb-run-store.ts';
import { defineRunStoreContract } from './run-store.contract.ts';

describe('LMDB run store', () => {
  defineRunStoreContract({
    place: () => mkdtempSync(join(tmpdir(), 'parley-run-store-')),
    open: async (dataDir) => openLmdbRunStore(openKv(dataDir)),
    remove: (dataDir) => rmSync(dataDir, { recursive: true, force: true }),
  });
});

describe('LMDB run store event log', () => {
  it('stores an append as one value and still reads a data dir that stored one event per key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-run-store-'));
    const kv = openKv(dataDir);
    try {
      const store = openLmdbRunStore(kv, { closeKv: false });
      // Before the batching, each event was its own value under [runId, seq].
      const eventDb = kv.db('run-events');
      for (const seq of [1, 2, 3]) await eventDb.put(['r1', seq], { seq, type: 'step.delta', text: `old${seq}` });
      await store.events.append('r1', [
        { seq: 4, type: 'answer.delta', text: 'a' },
        { seq: 5, type: 'answer.delta', text: 'b' },
        { seq: 6, type: 'run.finished' },
      ]);
      expect([...eventDb.getKeys({ start: ['r1', 0], end: ['r1', Number.MAX_SAFE_INTEGER] })]).toEqual([
        ['r1', 1],
        ['r1', 2],
        ['r1', 3],
        ['r1', 6],
      ]);
      expect((await store.events.read('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await store.events.read('r1', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect((await store.events.read('r1', 4)).map((e) => e.seq)).toEqual([5, 6]);
      await store.forget('r1');
      expect(await store.events.read('r1')).toEqual([]);
    } finally {
      await kv.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
