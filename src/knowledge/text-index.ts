/**
 * BM25 full-text ranking in memory, used for the specialists (SpecialistTextIndex: tens to hundreds
 * of records, rebuilt when the registry changes) and for the execution memory's window of recent
 * runs (RunMemoryIndex: thousands of records, updated one run at a time). One implementation, so
 * both backends and both uses rank the same way; a query costs microseconds where a full-text query
 * to the database costs a round trip.
 */
import type { SpecialistRecord } from './store.ts';
import { specialistSearchText } from './registry.ts';
import { searchTerm, tokenize, topicWeight } from './words.ts';

/** Okapi BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

/** The stems of a text, as the index and queries see them. */
export function terms(text: string): string[] {
  return tokenize(text).map(searchTerm);
}

/**
 * The documents holding one term: parallel arrays of slot and term frequency, grown by doubling. Its
 * document frequency (the live documents among them) is counted when a query asks for the term.
 */
interface Posting {
  slots: Int32Array;
  tfs: Int32Array;
  /** Entries used (some may be removed documents, skipped until the next compaction). */
  n: number;
}

/**
 * Removed documents tolerated (as dead entries) before the arrays are compacted: at least this many, and a
 * quarter of the live ones, so a compaction (one pass over every posting) comes once per that many removals.
 */
const COMPACT_AFTER = 1024;

/**
 * BM25 over documents keyed by id, with an inverted index so a query only touches the documents
 * sharing a term with it; documents can be added, replaced and removed one at a time. Postings are
 * typed arrays (8 bytes per document and distinct term) because the run window holds thousands of
 * documents of hundreds of terms; a removed document's entries are skipped, then dropped by a
 * compaction once there are more than COMPACT_AFTER removed documents and a quarter as many as live ones.
 * A document keeps no list of its terms (that list was ~380 bytes a run in the run window, more than the
 * document's postings): removing one only marks its slot, a query counts each of its terms' live documents
 * as it reads them, and a term left only in removed documents goes at the next compaction. With the window
 * full, the removed documents waiting for it are at most a quarter of the window (they were up to as many
 * as the live ones: twice the postings).
 */
export class Bm25Index<T> {
  readonly #slotOf = new Map<string, number>();
  /** Per slot (in insertion order): the item (undefined once removed) and its length in terms. */
  #items: (T | undefined)[] = [];
  #lengths: number[] = [];
  readonly #postings = new Map<string, Posting>();
  #totalLength = 0;
  #dead = 0;
  #scores = new Float64Array(0);

  get size(): number {
    return this.#slotOf.size;
  }

  /** Distinct terms held, including those left only in removed documents until the next compaction. */
  get terms(): number {
    return this.#postings.size;
  }

  /** The item of the document with this key, if any. */
  get(key: string): T | undefined {
    const slot = this.#slotOf.get(key);
    return slot === undefined ? undefined : this.#items[slot];
  }

  /** Adds the document, or replaces the one with the same key. */
  set(key: string, text: string, item: T): void {
    this.delete(key);
    const words = terms(text);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const slot = this.#items.length;
    for (const [w, n] of tf) {
      let p = this.#postings.get(w);
      if (!p) this.#postings.set(w, (p = { slots: new Int32Array(4), tfs: new Int32Array(4), n: 0 }));
      if (p.n === p.slots.length) {
        const slots = new Int32Array(p.n * 2);
        slots.set(p.slots);
        const tfs = new Int32Array(p.n * 2);
        tfs.set(p.tfs);
        p.slots = slots;
        p.tfs = tfs;
      }
      p.slots[p.n] = slot;
      p.tfs[p.n++] = n;
    }
    this.#items.push(item);
    this.#lengths.push(words.length);
    this.#slotOf.set(key, slot);
    this.#totalLength += words.length;
  }

  delete(key: string): boolean {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) return false;
    this.#items[slot] = undefined;
    this.#totalLength -= this.#lengths[slot]!;
    this.#slotOf.delete(key);
    if (++this.#dead > COMPACT_AFTER && this.#dead * 4 > this.#slotOf.size) this.#compact();
    return true;
  }

  /**
   * Every document sharing a term with the query, with its BM25 score (> 0) and its insertion
   * order (for stable tie-breaks), in no particular order: callers sort or select what they need.
   * `weightOf` scales each query term's part of the score (default 1).
   */
  search(query: string, weightOf?: (term: string) => number): { item: T; score: number; order: number }[] {
    const queryTerms = [...new Set(terms(query))].filter((t) => this.#postings.has(t));
    if (queryTerms.length === 0) return [];
    const n = this.#slotOf.size;
    const avgLength = n ? this.#totalLength / n : 0;
    if (this.#scores.length < this.#items.length) this.#scores = new Float64Array(this.#items.length * 2);
    const scores = this.#scores;
    const touched: number[] = [];
    // Terms in query order, so each document's sum adds up in the same order every time.
    for (const t of queryTerms) {
      const p = this.#postings.get(t)!;
      let live = 0;
      for (let i = 0; i < p.n; i++) if (this.#items[p.slots[i]!] !== undefined) live++;
      if (live === 0) continue;
      const idf = Math.log(1 + (n - live + 0.5) / (live + 0.5)) * (weightOf?.(t) ?? 1);
      for (let i = 0; i < p.n; i++) {
        const slot = p.slots[i]!;
        if (this.#items[slot] === undefined) continue;
        const tf = p.tfs[i]!;
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.#lengths[slot]!) / (avgLength || 1)));
      }
    }
    const hits: { item: T; score: number; order: number }[] = [];
    for (const slot of touched) {
      if (scores[slot]! > 0) hits.push({ item: this.#items[slot]!, score: scores[slot]!, order: slot });
      scores[slot] = 0;
    }
    return hits;
  }

  /** Drops removed documents: renumbers the live ones (keeping their order) and their postings; a term left in none goes. */
  #compact(): void {
    const remap = new Int32Array(this.#items.length).fill(-1);
    const items: T[] = [];
    const lengths: number[] = [];
    for (let slot = 0; slot < this.#items.length; slot++) {
      if (this.#items[slot] === undefined) continue;
      remap[slot] = items.length;
      items.push(this.#items[slot]!);
      lengths.push(this.#lengths[slot]!);
    }
    for (const [term, p] of this.#postings) {
      let kept = 0;
      for (let i = 0; i < p.n; i++) {
        const slot = remap[p.slots[i]!]!;
        if (slot < 0) continue;
        p.slots[kept] = slot;
        p.tfs[kept++] = p.tfs[i]!;
      }
      p.n = kept;
      if (kept === 0) this.#postings.delete(term);
    }
    for (const [key, slot] of this.#slotOf) this.#slotOf.set(key, remap[slot]!);
    this.#items = items;
    this.#lengths = lengths;
    this.#dead = 0;
  }
}

/** The specialists' search text (name, description, domains, tools), ranked with BM25. */
export class SpecialistTextIndex {
  readonly #index = new Bm25Index<SpecialistRecord>();

  constructor(specialists: Iterable<SpecialistRecord>) {
    for (const s of specialists) this.#index.set(s.id, specialistSearchText(s), s);
  }

  /**
   * Every specialist sharing a term with the query, with its BM25 score (> 0). A word of every topic
   * ("write", "new", "file") counts a quarter (words.ts topicWeight): the tool servers' descriptions are
   * full of them, and they put the memory server first for "write an onboarding checklist".
   */
  search(query: string): { specialist: SpecialistRecord; textScore: number }[] {
    // In registry order, as ranking has always seen them (ties keep that order).
    return this.#index
      .search(query, topicWeight)
      .sort((a, b) => a.order - b.order)
      .map((h) => ({ specialist: h.item, textScore: h.score }));
  }
}
