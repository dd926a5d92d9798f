/**
 * RunMemoryIndex: the execution memory's search, in memory. Holds the most recent `limit` runs (by
 * startedAt, then id) with a BM25 index over their query and answer, so searchMemory costs no
 * database round trip. Older runs fall out of the window and are no longer searched (the database
 * keeps them, and its full-text index on Run, for now).
 */
import type { MemoryHit, RunRecord } from './store.ts';
import { Bm25Index } from './text-index.ts';
import {
  compactRelevance,
  compactTerms,
  requestRelevance,
  requestTerms,
  weightedTerms,
  type CompactTerms,
} from './memory-relevance.ts';

/** What the window keeps of a run. */
export interface MemoryEntry {
  id: string;
  /** Whose run it was: a search for one caller sees only that caller's runs. */
  callerId: string;
  query: string;
  /**
   * The answer's first MEMORY_ANSWER_CHARS characters (what a prompt shows of it): the window holds
   * thousands of runs, and their whole answers were most of the heap a run left behind. The store reads
   * the rest from the database when a search asks for whole answers.
   */
  answer: string;
  /** The whole answer's length (the window's `answer` is cut when this is larger). */
  answerChars?: number;
  /** The run's verifier score. */
  score: number | null;
  /** How the run ended (absent for entries read from an older view). */
  status?: RunRecord['status'];
  startedAt: string;
}

/**
 * What the window keeps of a run: the entry, and its request's terms for the relevance measure
 * (memory-relevance.ts), as fields of the entry itself (no object of their own: ~30 bytes a run less).
 */
type WindowEntry = MemoryEntry & CompactTerms;

/** How much of an answer the window keeps: what a prompt shows of an earlier run's answer (prompts.ts memoryNote). */
export const MEMORY_ANSWER_CHARS = 400;

/** The default number of recent runs searched. */
export const MEMORY_WINDOW = 5000;

/** The text a run is found by: the same as the database's full-text index on Run. */
export const memorySearchText = (run: { query: string; answer?: string | null }) => `${run.query}\n${run.answer ?? ''}`;

const before = (a: MemoryEntry, b: MemoryEntry) =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.id < b.id);

export class RunMemoryIndex {
  /** Also the window's map by id (Bm25Index.get): a second Map of the same ids was ~70 bytes a run. */
  private readonly index = new Bm25Index<WindowEntry>();
  /** The window, oldest first. */
  private readonly order: WindowEntry[] = [];

  constructor(
    private readonly limit: number,
    runs: Iterable<MemoryEntry> = [],
  ) {
    if (!(limit >= 0)) throw new RangeError(`memory window must be a number >= 0, got ${limit}`);
    for (const run of runs) this.record(run);
  }

  get size(): number {
    return this.index.size;
  }

  has(id: string): boolean {
    return this.index.get(id) !== undefined;
  }

  /** A run as recorded (again, with the same id: it replaces the earlier record). Keeps the window's bound. */
  record(whole: MemoryEntry): void {
    const run = cutAnswer(whole);
    const current = this.index.get(run.id);
    if (current && sameEntry(current, run)) return;
    if (current) this.remove(current);
    if (this.limit === 0) return;
    if (this.order.length >= this.limit && before(run, this.order[0]!)) return; // older than the whole window
    this.order.splice(this.insertionPoint(run), 0, run);
    // Indexed by the whole answer (when given whole), kept cut.
    this.index.set(run.id, memorySearchText(whole), run);
    if (this.order.length > this.limit) this.remove(this.order[0]!);
  }

  /**
   * The k runs that match the query best, best first (ties: the more recent first), each with its
   * absolute relevance (memory-relevance.ts: how close its request is to this one, whatever else the
   * window holds). Without minRelevance, "best" is BM25 over their query and answer (a search); with it,
   * only runs at least that relevant are candidates and the most relevant come first (what a prompt's
   * memory is held to). With a callerId, only that caller's runs are candidates.
   */
  search(query: string, k: number, callerId?: string, minRelevance = 0): MemoryHit[] {
    if (k <= 0) return [];
    const mine = (run: MemoryEntry) => callerId === undefined || run.callerId === callerId;
    const asked = requestTerms(query);
    let hits: { item: WindowEntry; score: number }[];
    if (minRelevance > 0) {
      // Every run of the window, by its kept terms: no tokenizing per run, and no second index to hold.
      const compact = weightedTerms(asked);
      hits = [];
      for (const item of this.order) {
        if (!mine(item)) continue;
        const score = compactRelevance(compact, item);
        if (score >= minRelevance) hits.push({ item, score });
      }
    } else hits = this.index.search(query).filter((h) => mine(h.item));
    return bestOf(hits, k).map(({ item }) => {
      const { relevance, shared } = requestRelevance(asked, requestTerms(item.query));
      return {
        runId: item.id,
        query: item.query,
        answer: item.answer,
        ...(item.answerChars !== undefined ? { answerChars: item.answerChars } : {}),
        score: item.score,
        ...(item.status !== undefined ? { status: item.status } : {}),
        relevance,
        sharedTerms: shared,
      };
    });
  }

  private remove(entry: MemoryEntry): void {
    const i = this.insertionPoint(entry);
    // insertionPoint finds the first position not before the entry: the entry itself.
    if (this.order[i] === entry) this.order.splice(i, 1);
    this.index.delete(entry.id);
  }

  /** Binary search: the first position whose entry is not before `run`. */
  private insertionPoint(run: MemoryEntry): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.order[mid]!, run)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * The entry as the window keeps it: its answer cut to MEMORY_ANSWER_CHARS, with the whole length beside it.
 * Always a literal of exactly these fields: not the caller's object (a RunRecord passed as a MemoryEntry
 * would keep its steps), and not `{ ...run, answer, answerChars }`: V8 gave every spread copy a hidden class
 * of its own (~260 bytes each, one per run in the window; `bench/heap-diff.ts`), a literal shares one.
 */
function cutAnswer(run: MemoryEntry): WindowEntry {
  const whole = run.answer.length <= MEMORY_ANSWER_CHARS;
  const { hashes, norm16 } = compactTerms(requestTerms(run.query));
  return {
    id: run.id,
    callerId: run.callerId,
    query: run.query,
    // A copy, not a slice: V8's slice of a long string keeps the whole string alive.
    answer: whole ? run.answer : Buffer.from(run.answer.slice(0, MEMORY_ANSWER_CHARS), 'utf8').toString('utf8'),
    answerChars: whole ? run.answerChars : run.answer.length,
    score: run.score,
    status: run.status,
    startedAt: run.startedAt,
    hashes,
    norm16,
  };
}

/** The k best hits by score, best first (ties: the more recent run first); by selection when k is small. */
function bestOf<H extends { item: WindowEntry; score: number }>(hits: H[], k: number): H[] {
  const better = (a: H, b: H) => a.score > b.score || (a.score === b.score && before(b.item, a.item));
  if (k >= hits.length) return hits.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  // A few hits wanted among maybe thousands.
  const top: H[] = [];
  for (const hit of hits) {
    if (top.length === k && !better(hit, top[k - 1]!)) continue;
    let i = Math.min(top.length, k - 1);
    if (top.length === k) top.pop();
    while (i > 0 && better(hit, top[i - 1]!)) i--;
    top.splice(i, 0, hit);
  }
  return top;
}

function sameEntry(a: MemoryEntry, b: MemoryEntry): boolean {
  return (
    a.callerId === b.callerId &&
    a.query === b.query &&
    a.answer === b.answer &&
    a.answerChars === b.answerChars &&
    a.score === b.score &&
    a.status === b.status &&
    a.startedAt === b.startedAt
  );
}
