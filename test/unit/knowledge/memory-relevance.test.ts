/**
 * The execution memory's relevance threshold (issue 43 §4): the measure is absolute (one request against
 * another, whatever else memory holds), the window's compact form computes the same figure, and on the
 * labelled pairs of bench/memory-relevance/pairs.json the threshold keeps the error rates docs/learning.md
 * states (`npm run bench:memory-relevance` prints them).
 */
import { describe, expect, it } from 'vitest';
import {
  MEMORY_MIN_RELEVANCE,
  compactRelevance,
  compactTerms,
  requestRelevance,
  requestTerms,
  weightedTerms,
} from '../../../src/knowledge/memory-relevance.ts';
import { RunMemoryIndex } from '../../../src/knowledge/run-memory.ts';
import { labelledPairs, ratesAt, scorePairs } from '../../../bench/memory-relevance/rates.ts';

const relevance = (a: string, b: string) => requestRelevance(requestTerms(a), requestTerms(b));

describe('request relevance', () => {
  it('is 1 for the same request, 0 for none shared, symmetric, and says which words are shared', () => {
    expect(relevance('Rotate the Postgres password', 'rotate the postgres password!').relevance).toBeCloseTo(1, 9);
    expect(relevance('Write a haiku about autumn', 'Tune the JVM garbage collector')).toEqual({
      relevance: 0,
      shared: [],
    });
    const ab = relevance('How do I rotate the Postgres password?', 'Postgres password rotation schedule');
    const ba = relevance('Postgres password rotation schedule', 'How do I rotate the Postgres password?');
    expect(ab.relevance).toBeCloseTo(ba.relevance, 12);
    expect(ab.shared).toEqual(['postgres', 'password']);
  });

  it('weighs words of every topic a quarter: two requests sharing only those stay apart', () => {
    const common = relevance('Write a short summary file', 'Write a short summary file of the Kafka outage');
    const topical = relevance('Kafka outage', 'Write a short summary file of the Kafka outage');
    expect(topical.relevance).toBeGreaterThan(MEMORY_MIN_RELEVANCE);
    expect(common.relevance).toBeLessThan(MEMORY_MIN_RELEVANCE);
    expect(topical.shared).toEqual(['kafka', 'outage']);
  });

  it('does not depend on the other runs in memory: an unrelated best hit stays below the threshold', () => {
    const window = new RunMemoryIndex(10);
    const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
    window.record({
      id: 'a',
      callerId: 'c',
      query: 'Compare Python HTTP client libraries',
      answer: 'httpx',
      score: 0.9,
      startedAt: at,
    });
    const alone = window.search('Design a team for Python code review', 3);
    expect(alone.map((h) => h.runId)).toEqual(['a']);
    expect(alone[0]!.relevance).toBeLessThan(MEMORY_MIN_RELEVANCE);
    expect(window.search('Design a team for Python code review', 3, undefined, MEMORY_MIN_RELEVANCE)).toEqual([]);
    window.record({
      id: 'b',
      callerId: 'c',
      query: 'Tune the JVM garbage collector',
      answer: 'G1',
      score: 0.9,
      startedAt: at,
    });
    expect(window.search('Design a team for Python code review', 3)[0]!.relevance).toBe(alone[0]!.relevance);
  });

  it('computes the same figure from the compact terms the memory window keeps, for every labelled pair', () => {
    for (const p of labelledPairs()) {
      const asked = requestTerms(p.later);
      const earlier = requestTerms(p.earlier);
      expect(compactRelevance(weightedTerms(asked), compactTerms(earlier)), p.later).toBeCloseTo(
        requestRelevance(asked, earlier).relevance,
        12,
      );
    }
  });
});

describe('the threshold on the labelled pairs', () => {
  const scored = scorePairs(labelledPairs());

  it('is calibrated on at least 60 varied pairs, related and not', () => {
    expect(scored.length).toBeGreaterThanOrEqual(60);
    expect(new Set(scored.map((p) => p.kind))).toEqual(
      new Set(['paraphrase', 'follow-up', 'shared-words', 'unrelated', 'other-language']),
    );
    expect(scored.filter((p) => p.related).length).toBeGreaterThanOrEqual(30);
    expect(scored.filter((p) => !p.related).length).toBeGreaterThanOrEqual(30);
  });

  it('keeps the rates docs/learning.md states: 3 of 37 unrelated let in, 4 of 35 related left out', () => {
    expect(ratesAt(MEMORY_MIN_RELEVANCE, scored)).toEqual({
      falseInclusion: 3,
      unrelated: 37,
      falseExclusion: 4,
      related: 35,
    });
    // Every paraphrase and every plainly unrelated pair is right.
    for (const p of scored.filter((s) => s.kind === 'paraphrase'))
      expect(p.relevance, p.later).toBeGreaterThanOrEqual(MEMORY_MIN_RELEVANCE);
    for (const p of scored.filter((s) => s.kind === 'unrelated'))
      expect(p.relevance, p.later).toBeLessThan(MEMORY_MIN_RELEVANCE);
  });
});
