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
import { stem, tokenize } from './words.ts';

/**
 * Below this, an earlier run never enters a prompt (calibrated: docs/learning.md). Held by the memory
 * node's search, which is where every prompt's memory comes from.
 */
export const MEMORY_MIN_RELEVANCE = 0.45;

/**
 * A word's term: its stem (words.ts) without a final silent e, so "rebalance" meets "rebalancing" and
 * "write" meets "writing" (the shared stemmer keeps them apart, and team patterns depend on it as it is).
 */
function termOf(word: string): string {
  const s = stem(word);
  return s.length > 3 && s.endsWith('e') ? s.slice(0, -1) : s;
}

/** Weight of a common word, against 1 for a topical one. */
const COMMON_WEIGHT = 0.25;

const COMMON = new Set(
  // Task verbs and nouns of every topic.
  (
    'write create make build add give show tell explain describe list summarize summary compare comparison ' +
    'short brief simple quick new good best better use using help need want get find file files document ' +
    'text example examples way ways step steps thing things idea ideas about some any all more most other ' +
    'one two three each every also just like only very well now today work look set up put keep ' +
    // Function words of the languages the stop list (English) does not cover.
    'der die das und ist ein eine einen einem ich wie was für mit nicht zu den dem des auf im bitte ' +
    'le la les et est un une des du pour avec pas que qui dans sur en au aux ce cette ' +
    'el los las y es una por con para del lo en al se como'
  )
    .split(' ')
    .map(termOf),
);

/** A request as the measure sees it: each stem's weight, and the first word the stem came from. */
export interface RequestTerms {
  weights: Map<string, number>;
  /** Squared norm of the weights. */
  norm2: number;
  /** Stem → the word as written (for saying which words two requests share). */
  words: Map<string, string>;
}

/** A term's weight in the measure. */
export const termWeight = (term: string) => (COMMON.has(term) ? COMMON_WEIGHT : 1);

/** A request's terms, as the measure and the memory window's request index (run-memory.ts) see them. */
export const relevanceTerms = (text: string): string[] => tokenize(text).map(termOf);

export function requestTerms(text: string): RequestTerms {
  const weights = new Map<string, number>();
  const words = new Map<string, string>();
  let norm2 = 0;
  for (const word of tokenize(text)) {
    const s = termOf(word);
    if (weights.has(s)) continue;
    const w = termWeight(s);
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
  norm2: number;
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
  return { hashes: [...weights.keys()].map(termHash).sort((a, b) => a - b), norm2 };
}

export function weightedTerms({ weights, norm2 }: RequestTerms): WeightedTerms {
  const pairs = [...weights].map(([t, w]) => [termHash(t), w * w] as const).sort((a, b) => a[0] - b[0]);
  return { hashes: pairs.map((p) => p[0]), weights2: pairs.map((p) => p[1]), norm2 };
}

/** requestRelevance's figure from compact terms (a term weighs the same on either side). */
export function compactRelevance(asked: WeightedTerms, earlier: CompactTerms): number {
  if (asked.norm2 === 0 || earlier.norm2 === 0) return 0;
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
  return Math.min(1, dot / Math.sqrt(asked.norm2 * earlier.norm2));
}
