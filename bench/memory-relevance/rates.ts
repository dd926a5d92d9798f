/**
 * The labelled pairs of pairs.json scored with the memory search's relevance measure, and the error
 * rates a threshold gives on them: read by bench/memory-relevance.ts (the calibration report) and by
 * test/unit/knowledge/memory-relevance.test.ts (which holds the threshold to the rates docs/learning.md states).
 */
import { readFileSync } from 'node:fs';
import { requestRelevance, requestTerms, type RequestRelevance } from '../../src/knowledge/memory-relevance.ts';

export interface Pair {
  kind: string;
  related: boolean;
  earlier: string;
  later: string;
}

export type ScoredPair = Pair & RequestRelevance;

export function labelledPairs(): Pair[] {
  return (JSON.parse(readFileSync(new URL('./pairs.json', import.meta.url), 'utf8')) as { pairs: Pair[] }).pairs;
}

export const scorePairs = (pairs: Pair[]): ScoredPair[] =>
  pairs.map((p) => ({ ...p, ...requestRelevance(requestTerms(p.later), requestTerms(p.earlier)) }));

export interface Rates {
  /** Unrelated pairs at or above the threshold: memory that would enter a prompt and should not. */
  falseInclusion: number;
  unrelated: number;
  /** Related pairs below it: memory that would help and is left out. */
  falseExclusion: number;
  related: number;
}

export function ratesAt(threshold: number, scored: ScoredPair[]): Rates {
  const related = scored.filter((p) => p.related);
  const unrelated = scored.filter((p) => !p.related);
  return {
    falseInclusion: unrelated.filter((p) => p.relevance >= threshold).length,
    unrelated: unrelated.length,
    falseExclusion: related.filter((p) => p.relevance < threshold).length,
    related: related.length,
  };
}
