/** The RunStore contract on the embedded LMDB backend (the data dir's `store` environment). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
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
