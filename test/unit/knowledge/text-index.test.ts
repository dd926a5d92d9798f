/**
 * Bm25Index under churn: after thousands of replacements and removals (so removed documents are
 * skipped, then compacted away), it scores exactly as an index built from the surviving documents.
 */
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/knowledge/text-index.ts';

const WORDS =
  'postgres schema index invoice deploy kubernetes report sales tune docs python vacuum shard table migrate rollback'.split(
    ' ',
  );

describe('Bm25Index', () => {
  it('scores like a fresh index of the surviving documents after adds, replacements and removals', () => {
    let seed = 11;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const text = () =>
      Array.from({ length: 3 + Math.floor(rand() * 20) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const churned = new Bm25Index<string>();
    const alive = new Map<string, string>();
    for (let i = 0; i < 6000; i++) {
      const key = `d${Math.floor(rand() * 1500)}`;
      if (rand() < 0.3) {
        expect(churned.delete(key)).toBe(alive.delete(key));
      } else {
        const t = text();
        churned.set(key, t, key);
        alive.set(key, t);
      }
    }
    expect(churned.size).toBe(alive.size);
    const fresh = new Bm25Index<string>();
    for (const [key, t] of alive) fresh.set(key, t, key);
    for (const query of ['postgres vacuum', 'tune the sales report', 'kubernetes', 'nothing matches this']) {
      const scores = (index: Bm25Index<string>) =>
        Object.fromEntries(index.search(query).map((h) => [h.item, h.score]));
      expect(scores(churned)).toEqual(scores(fresh));
    }
    expect(fresh.search('postgres').length).toBeGreaterThan(0);
  });

  it('lets go of the terms of removed documents: a window of 1,000 over 30,000 documents of unique words', () => {
    const window = new Bm25Index<number>();
    for (let i = 0; i < 30_000; i++) {
      window.set(`d${i}`, `shared words serial${i} code${i}x`, i);
      if (i >= 1000) window.delete(`d${i - 1000}`);
    }
    expect(window.size).toBe(1000);
    // 1,000 live documents of two unique terms each, the two shared ones, and at most a quarter of the
    // window's worth of removed documents waiting for the next compaction (COMPACT_AFTER at least).
    expect(window.terms).toBeLessThanOrEqual(2 + 2 * 1000 + 2 * 1025);
    expect(window.search('serial29999').map((h) => h.item)).toEqual([29_999]);
    expect(window.search('serial5')).toEqual([]);
  });
});
