/**
 * A run's new id (src/graph/run/new-id.ts) on the heap: crypto.randomUUID()'s string is a tree of cons
 * strings V8 keeps as such (~490 bytes), and a run's id is kept after the run (finished runs, memory window,
 * caller ledger), so the engine's ids are one flat string (~60 bytes). Measured after full GCs.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/graph/run/new-id.ts';
import { settledHeap } from '../../support/fuzz/harness.ts';

const IDS = 5000;

/** Heap per id while IDS of them are held as Map keys (as the finished runs and the ledger hold them). */
async function heldBytes(make: () => string): Promise<number> {
  const held = new Map<string, number>();
  const before = await settledHeap();
  for (let i = 0; i < IDS; i++) held.set(make(), i);
  const perId = ((await settledHeap()) - before) / IDS;
  expect(held.size).toBe(IDS);
  return perId;
}

describe('a new run id', () => {
  it('is a UUID, a new one each time', () => {
    const a = newId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newId()).not.toBe(a);
  });

  it('costs the heap what its 36 characters do, not the tree of strings randomUUID builds', async () => {
    const flat = await heldBytes(newId);
    const tree = await heldBytes(randomUUID);
    // A 36-character string (56 bytes) and a Map slot: ~100 measured; randomUUID's strings ~530.
    expect(flat).toBeLessThan(160);
    expect(tree - flat, 'randomUUID no longer builds a tree: newId can go').toBeGreaterThan(200);
  });
});
