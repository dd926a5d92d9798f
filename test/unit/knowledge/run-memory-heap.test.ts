/**
 * What the execution memory's window (src/knowledge/run-memory.ts) keeps per run on the heap: it holds up
 * to PARLEY_MEMORY_WINDOW runs (5,000 by default), so bytes per entry are the heap a run leaves behind
 * until the window is full (issue 32; docs/performance.md). Measured after full GCs, over enough entries
 * that one allocation more or less does not move the figure.
 */
import { describe, expect, it } from 'vitest';
import { MEMORY_ANSWER_CHARS, RunMemoryIndex, type MemoryEntry } from '../../../src/knowledge/run-memory.ts';
import { settledHeap } from '../../support/fuzz/harness.ts';

const ENTRIES = 3000;

/** A run as the store hands it over: a RunRecord's fields beyond MemoryEntry's, and a long answer. */
function recordedRun(i: number): MemoryEntry & { steps: string[] } {
  return {
    id: `run-${i}`,
    callerId: 'c1',
    query: `quarterly figures for region ${i % 7}`,
    // Few distinct words, so the index's share is small and the entry itself is what is measured.
    answer: `figures region north south `.repeat(80) + String(i),
    score: 0.9,
    startedAt: new Date(1_700_000_000_000 + i).toISOString(),
    steps: Array.from({ length: 8 }, (_, s) => `step ${s} of run ${i}: ${'output '.repeat(60)}`),
  };
}

describe('the memory window on the heap', () => {
  it('keeps a cut copy of each run and nothing else of it: under 950 bytes a run beyond its answer head', async () => {
    const window = new RunMemoryIndex(ENTRIES);
    // Warm the window's code paths and its arrays' first growth.
    for (let i = 0; i < 200; i++) window.record(recordedRun(-1 - i));
    const before = await settledHeap();
    for (let i = 0; i < ENTRIES; i++) window.record(recordedRun(i));
    const perEntry = ((await settledHeap()) - before) / ENTRIES;
    expect(window.size).toBe(ENTRIES);
    // The answer head the window must keep (one byte a character, plus a string header), and what is left
    // for the entry's fields, the query, its index postings and the maps' slots: 770 bytes measured, 900 since the
    // entry keeps its request's term hashes for the relevance measure (issue 43: an array, ~130 bytes here). A run's
    // steps (a RunRecord's, 4 KB here; the spread copy kept them: ~4,800 bytes an entry), its whole answer
    // (2 KB), or a hidden class of its own per entry (V8 gave one to each spread copy: ~260 bytes) break it.
    const head = MEMORY_ANSWER_CHARS + 16;
    expect(perEntry - head).toBeLessThan(950);
    expect(perEntry).toBeGreaterThan(head);
  });
});
