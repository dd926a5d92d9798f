import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbA2aTaskStore } from '../../../src/store/a2a-tasks/lmdb.ts';
import { createMemoryA2aTaskStore } from '../../../src/store/a2a-tasks/memory.ts';
import { a2aTaskStoreContract } from './a2a-tasks.contract.ts';

a2aTaskStoreContract('lmdb', async (retention) => {
  const kv = openKv(':memory:');
  return { store: createLmdbA2aTaskStore(kv, retention), close: () => kv.close() };
});

a2aTaskStoreContract('memory', async (retention) => ({
  store: createMemoryA2aTaskStore(retention),
  close: async () => {},
}));

describe('lmdb A2A task store', () => {
  it('keeps tasks, their run seq and the finished queue across a close and reopen of the same data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-a2a-tasks-'));
    const scope = { tenant: '', owner: 'alice' };
    const task = (id: string, terminal: boolean) => ({
      id,
      contextId: 'c',
      state: terminal ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_INPUT_REQUIRED',
      statusTimestamp: `2026-01-01T00:00:0${id.length}.000Z`,
      terminal,
      task: { id },
    });
    try {
      const first = openKv(dataDir);
      const before = createLmdbA2aTaskStore(first, { maxFinished: 2 });
      await before.put(scope, task('a', true));
      await before.put(scope, task('bb', false));
      await before.setRunSeq(scope, 'bb', 12);
      await first.close();

      const second = openKv(dataDir);
      const after = createLmdbA2aTaskStore(second, { maxFinished: 2 });
      expect(await after.get(scope, 'a')).toEqual(task('a', true));
      expect(await after.listUnfinished()).toEqual([{ ...task('bb', false), runSeq: 12, scope }]);
      // The queue survived too: two more finished tasks drop 'a' first.
      await after.put(scope, task('ccc', true));
      await after.put(scope, task('dddd', true));
      expect(await after.get(scope, 'a')).toBeUndefined();
      expect(await after.get(scope, 'ccc')).toBeDefined();
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
