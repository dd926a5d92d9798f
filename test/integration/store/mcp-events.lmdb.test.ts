/** The MCP event store over LMDB: the contract, and a restart on the same data dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbMcpEventStore } from '../../../src/store/mcp-events/lmdb-event-store.ts';
import { mcpEventStoreContract, note, replay } from './mcp-events.contract.ts';

mcpEventStoreContract('lmdb', async (options) => {
  const kv = openKv(':memory:');
  return { store: createLmdbMcpEventStore(kv, options), close: () => kv.close() };
});

describe('LMDB MCP event store', () => {
  it('survives a restart on the same data dir and continues the numbering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-events-'));
    try {
      let kv = openKv(dir);
      const first = await createLmdbMcpEventStore(kv).storeEvent('s', note(1));
      await kv.close();
      kv = openKv(dir);
      const store = createLmdbMcpEventStore(kv);
      const second = await store.storeEvent('s', note(2));
      expect(second).not.toBe(first);
      expect((await replay(store, first)).got.map((g) => g.id)).toEqual([second]);
      await kv.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
