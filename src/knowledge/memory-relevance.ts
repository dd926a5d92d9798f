/**
 * How relevant an earlier run is to a new request, on an absolute scale (issue 43 §4): the similarity
 * of the two requests' words, 0..1, the same whatever else is in memory. The BM25 score that ranks a
 * search is relative (it grows with the corpus's rarity of a word), and dividing it by the best hit's
 * made the best hit 1.0 however unrelated it was; this measure is what a prompt's memory is held to.
 *
 * The measure compares the requests, not the answers: an answer has hundreds of words and would share
 * some with nearly any request. It is a weighted cosine of the two requests' stems (words.ts), where a
 * word that shows up in requests of every topic ("write", "file", "explain", "best", and the function
 * words of the languages the stop list does not cover) weighs a quarter of a topical one, so two requests
 * that share only such words stay apart. Calibrated on bench/memory-relevance/pairs.json
 * (`npm run bench:memory-relevance`; docs/learning.md, "Execution memory: relevance before recall").
 */
import { searchTerm, tokenize, topicWeight } from './words.ts';

/**
 * Below this, an earlier run never enters a prompt (calibrated: docs/learning.md). Held by the memory
 * node's search, which is where every prompt's memory comes from.
 */
export const MEMORY_MIN_RELEVANCE = 0.45;

/** A request as the measure sees it: each stem's weight, and the first word the stem came from. */
export interface RequestTerms {
  weights: Map<string, number>;
  /** Squared norm of the weights. */
  norm2: number;
  /** Stem → the word as written (for saying which words two requests share). */
  words: Map<string, string>;
}

export function requestTerms(text: string): RequestTerms {
  const weights = new Map<string, number>();
  const words = new Map<string, string>();
  let norm2 = 0;
  for (const word of tokenize(text)) {
    const s = searchTerm(word);
    if (weights.has(s)) continue;
    const w = topicWeight(s);
    weights.set(s, w);
    words.set(s, word);
    norm2 += w * w;
  }
  return { weights, norm2, words };
}

export interface RequestRelevance {
  /** 0..1: 1 for the same words, 0 for none shared. */
  relevance: number;
  /** The words the requests share, topical first, as the new request writes them. */
  shared: string[];
}

/** The relevance of an earlier request to a new one (symmetric in the score; `shared` spelt as the new one). */
export function requestRelevance(asked: RequestTerms, earlier: RequestTerms): RequestRelevance {
  if (asked.norm2 === 0 || earlier.norm2 === 0) return { relevance: 0, shared: [] };
  let dot = 0;
  const shared: { word: string; weight: number }[] = [];
  for (const [s, w] of asked.weights) {
    const v = earlier.weights.get(s);
    if (v === undefined) continue;
    dot += w * v;
    shared.push({ word: asked.words.get(s)!, weight: w });
  }
  const relevance = Math.min(1, dot / Math.sqrt(asked.norm2 * earlier.norm2));
  shared.sort((a, b) => b.weight - a.weight);
  return { relevance, shared: shared.map((s) => s.word) };
}

/**
 * A request's terms as the memory window keeps them for thousands of runs: sorted 30-bit hashes (small
 * integers V8 keeps unboxed, ~4 bytes each) with each term's squared weight, and the squared norm. A search
 * compares the query with every run by merging two short sorted lists: no tokenizing per run, no index
 * to hold. Two terms whose hashes collide (about 1 in 10^9 per pair) count as shared.
 */
export interface CompactTerms {
  hashes: number[];
  /** 16 × the squared norm: a whole number (the weights are 1 and 1/4), which V8 keeps unboxed. */
  norm16: number;
}

/** A query's compact terms, with each hash's squared weight (in the same order) to add up what is shared. */
export interface WeightedTerms extends CompactTerms {
  weights2: number[];
}

/** FNV-1a, cut to 30 bits. */
function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return h >>> 2;
}

export function compactTerms({ weights, norm2 }: RequestTerms): CompactTerms {
  return { hashes: [...weights.keys()].map(termHash).sort((a, b) => a - b), norm16: Math.round(norm2 * 16) };
}

export function weightedTerms({ weights, norm2 }: RequestTerms): WeightedTerms {
  const pairs = [...weights].map(([t, w]) => [termHash(t), w * w] as const).sort((a, b) => a[0] - b[0]);
  return { hashes: pairs.map((p) => p[0]), weights2: pairs.map((p) => p[1]), norm16: Math.round(norm2 * 16) };
}

/** requestRelevance's figure from compact terms (a term weighs the same on either side). */
export function compactRelevance(asked: WeightedTerms, earlier: CompactTerms): number {
  if (asked.norm16 === 0 || earlier.norm16 === 0) return 0;
  const a = asked.hashes;
  const b = earlier.hashes;
  let dot = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i] === b[j]) {
      dot += asked.weights2[i]!;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return Math.min(1, (16 * dot) / Math.sqrt(asked.norm16 * earlier.norm16));
}
