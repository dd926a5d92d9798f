/**
 * SpecialistTextIndex: BM25 over the specialists' search text (name, description, domains, tools),
 * in memory. The registry is small (tens to hundreds of records), so ranking a query is a few
 * microseconds, where a full-text query to the database costs a round trip per run. Both backends
 * use it, so they rank identically.
 */
import type { SpecialistRecord } from './store.ts';
import { specialistSearchText, stem, tokenize } from './registry.ts';

/** Okapi BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

interface Doc {
  specialist: SpecialistRecord;
  terms: Map<string, number>;
  length: number;
}

/** The stems of a text, as the index and queries see them. */
export function terms(text: string): string[] {
  return tokenize(text).map(stem);
}

export class SpecialistTextIndex {
  private readonly docs: Doc[] = [];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(specialists: Iterable<SpecialistRecord>) {
    let total = 0;
    for (const specialist of specialists) {
      const words = terms(specialistSearchText(specialist));
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      this.docs.push({ specialist, terms: tf, length: words.length });
      total += words.length;
    }
    this.avgLength = this.docs.length ? total / this.docs.length : 0;
  }

  /** Every specialist sharing a term with the query, with its BM25 score (> 0). */
  search(query: string): { specialist: SpecialistRecord; textScore: number }[] {
    const queryTerms = [...new Set(terms(query))].filter((t) => this.df.has(t));
    if (queryTerms.length === 0) return [];
    const n = this.docs.length;
    const idf = queryTerms.map((t) => {
      const df = this.df.get(t)!;
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
    const hits: { specialist: SpecialistRecord; textScore: number }[] = [];
    for (const doc of this.docs) {
      let score = 0;
      for (let i = 0; i < queryTerms.length; i++) {
        const tf = doc.terms.get(queryTerms[i]!);
        if (!tf) continue;
        score += (idf[i]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / (this.avgLength || 1)));
      }
      if (score > 0) hits.push({ specialist: doc.specialist, textScore: score });
    }
    return hits;
  }
}
