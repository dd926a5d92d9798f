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
