import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbA2aPushStore } from '../../../src/store/a2a-push/lmdb.ts';
import { createMemoryA2aPushStore } from '../../../src/store/a2a-push/memory.ts';
import { a2aPushStoreContract } from './a2a-push.contract.ts';

a2aPushStoreContract('lmdb', async () => {
  const kv = openKv(':memory:');
  return { store: createLmdbA2aPushStore(kv), close: () => kv.close() };
});

a2aPushStoreContract('memory', async () => ({ store: createMemoryA2aPushStore(), close: async () => {} }));

describe('lmdb A2A push store', () => {
  it('keeps configs and queued deliveries across a close and reopen of the same data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-a2a-push-'));
    const scope = { tenant: '', owner: 'alice' };
    try {
      const first = openKv(dataDir);
      const before = createLmdbA2aPushStore(first);
      await before.putConfig(scope, 't', { id: 'c', config: { url: 'https://x.example' }, wireVersion: '1.0' });
      const [queued] = await before.enqueue([
        {
          scope,
          taskId: 't',
          configId: 'c',
          url: 'https://x.example',
          headers: {},
          body: 'b',
          attempts: 0,
          notBefore: 0,
          createdAt: 0,
        },
      ]);
      await first.close();

      const second = openKv(dataDir);
      const after = createLmdbA2aPushStore(second);
      expect((await after.listConfigs(scope, 't')).map((c) => c.id)).toEqual(['c']);
      expect(await after.queued(10)).toEqual([queued]);
      // The seq goes on after the last one queued before the restart.
      const [next] = await after.enqueue([{ ...queued!, body: 'b2' }]);
      expect(next!.seq).toBeGreaterThan(queued!.seq);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
