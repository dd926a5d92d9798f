/** The KnowledgeStore contract on embedded Kuzu, in memory. */
import { describe } from 'vitest';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import { defineStoreContract } from './store.contract.ts';

describe('KnowledgeStore contract: Kuzu (:memory:)', () => {
  defineStoreContract((options) => openKuzuStore({ path: ':memory:', ...options }));
});
