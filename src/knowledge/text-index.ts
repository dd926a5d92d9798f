/**
 * BM25 full-text ranking in memory, used for the specialists (SpecialistTextIndex: tens to hundreds
 * of records, rebuilt when the registry changes) and for the execution memory's window of recent
 * runs (RunMemoryIndex: thousands of records, updated one run at a time). One implementation, so
 * both backends and both uses rank the same way; a query costs microseconds where a full-text query
 * to the database costs a round trip.
 */
import type { SpecialistRecord } from './store.ts';
import { specialistSearchText, stem, tokenize } from './registry.ts';

/** Okapi BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

/** The stems of a text, as the index and queries see them. */
export function terms(text: string): string[] {
  return tokenize(text).map(stem);
}

interface Doc<T> {
  item: T;
  /** Insertion order, handed out with hits so callers can break ties stably. */
  seq: number;
  /** Distinct terms, to remove the document's postings. */
  terms: string[];
  length: number;
}

/**
 * BM25 over documents keyed by id, with an inverted index so a query only touches the documents
 * sharing a term with it; documents can be added, replaced and removed one at a time.
 */
export class Bm25Index<T> {
  private readonly docs = new Map<string, Doc<T>>();
  private readonly postings = new Map<string, Map<Doc<T>, number>>();
  private totalLength = 0;
  private nextSeq = 0;

  get size(): number {
    return this.docs.size;
  }

  /** Adds the document, or replaces the one with the same key. */
  set(key: string, text: string, item: T): void {
    this.delete(key);
    const words = terms(text);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const doc: Doc<T> = { item, seq: this.nextSeq++, terms: [...tf.keys()], length: words.length };
    for (const [w, n] of tf) {
      let posting = this.postings.get(w);
      if (!posting) this.postings.set(w, (posting = new Map()));
      posting.set(doc, n);
    }
    this.docs.set(key, doc);
    this.totalLength += doc.length;
  }

  delete(key: string): boolean {
    const doc = this.docs.get(key);
    if (!doc) return false;
    for (const w of doc.terms) {
      const posting = this.postings.get(w)!;
      posting.delete(doc);
      if (posting.size === 0) this.postings.delete(w);
    }
    this.docs.delete(key);
    this.totalLength -= doc.length;
    return true;
  }

  /**
   * Every document sharing a term with the query, with its BM25 score (> 0) and its insertion
   * order (for stable tie-breaks), in no particular order: callers sort or select what they need.
   */
  search(query: string): { item: T; score: number; order: number }[] {
    const queryTerms = [...new Set(terms(query))].filter((t) => this.postings.has(t));
    if (queryTerms.length === 0) return [];
    const n = this.docs.size;
    const avgLength = n ? this.totalLength / n : 0;
    const scores = new Map<Doc<T>, number>();
    // Terms in query order, so each document's sum adds up in the same order every time.
    for (const t of queryTerms) {
      const posting = this.postings.get(t)!;
      const df = posting.size;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const [doc, tf] of posting) {
        const term = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / (avgLength || 1)));
        scores.set(doc, (scores.get(doc) ?? 0) + term);
      }
    }
    const hits: { item: T; score: number; order: number }[] = [];
    for (const [doc, score] of scores) if (score > 0) hits.push({ item: doc.item, score, order: doc.seq });
    return hits;
  }
}

/** The specialists' search text (name, description, domains, tools), ranked with BM25. */
export class SpecialistTextIndex {
  private readonly index = new Bm25Index<SpecialistRecord>();

  constructor(specialists: Iterable<SpecialistRecord>) {
    for (const s of specialists) this.index.set(s.id, specialistSearchText(s), s);
  }

  /** Every specialist sharing a term with the query, with its BM25 score (> 0). */
  search(query: string): { specialist: SpecialistRecord; textScore: number }[] {
    // In registry order, as ranking has always seen them (ties keep that order).
    return this.index
      .search(query)
      .sort((a, b) => a.order - b.order)
      .map((h) => ({ specialist: h.item, textScore: h.score }));
  }
}
