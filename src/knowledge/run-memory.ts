/**
 * RunMemoryIndex: the execution memory's search, in memory. Holds the most recent `limit` runs (by
 * startedAt, then id) with a BM25 index over their query and answer, so searchMemory costs no
 * database round trip. Older runs fall out of the window and are no longer searched (the database
 * keeps them, and its full-text index on Run, for now).
 */
import type { MemoryHit } from './store.ts';
import { Bm25Index } from './text-index.ts';

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
  startedAt: string;
}

/** How much of an answer the window keeps: what a prompt shows of an earlier run's answer (prompts.ts memoryNote). */
export const MEMORY_ANSWER_CHARS = 400;

/** The default number of recent runs searched. */
export const MEMORY_WINDOW = 5000;

/** The text a run is found by: the same as the database's full-text index on Run. */
export const memorySearchText = (run: { query: string; answer?: string | null }) => `${run.query}\n${run.answer ?? ''}`;

const before = (a: MemoryEntry, b: MemoryEntry) =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.id < b.id);

export class RunMemoryIndex {
  private readonly index = new Bm25Index<MemoryEntry>();
  private readonly entries = new Map<string, MemoryEntry>();
  /** The window, oldest first. */
  private readonly order: MemoryEntry[] = [];

  constructor(
    private readonly limit: number,
    runs: Iterable<MemoryEntry> = [],
  ) {
    if (!(limit >= 0)) throw new RangeError(`memory window must be a number >= 0, got ${limit}`);
    for (const run of runs) this.record(run);
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** A run as recorded (again, with the same id: it replaces the earlier record). Keeps the window's bound. */
  record(whole: MemoryEntry): void {
    const run = cutAnswer(whole);
    const current = this.entries.get(run.id);
    if (current && sameEntry(current, run)) return;
    if (current) this.remove(current);
    if (this.limit === 0) return;
    if (this.order.length >= this.limit && before(run, this.order[0]!)) return; // older than the whole window
    this.order.splice(this.insertionPoint(run), 0, run);
    this.entries.set(run.id, run);
    // Indexed by the whole answer (when given whole), kept cut.
    this.index.set(run.id, memorySearchText(whole), run);
    if (this.order.length > this.limit) this.remove(this.order[0]!);
  }

  /**
   * The k best runs for the query, best first (ties: the more recent first), with relevance as
   * the score divided by the best hit's, as the database's memory search reported it. With a
   * callerId, only that caller's runs are candidates (the ranking is among them alone).
   */
  search(query: string, k: number, callerId?: string): MemoryHit[] {
    if (k <= 0) return [];
    const all = this.index.search(query);
    const hits = callerId === undefined ? all : all.filter((h) => h.item.callerId === callerId);
    const better = (a: (typeof hits)[number], b: (typeof hits)[number]) =>
      a.score > b.score || (a.score === b.score && before(b.item, a.item));
    // Top k by selection when k is small (a few hits) and the hits may be thousands.
    let top: typeof hits = [];
    if (k >= hits.length) top = hits.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    else
      for (const hit of hits) {
        if (top.length === k && !better(hit, top[k - 1]!)) continue;
        let i = Math.min(top.length, k - 1);
        if (top.length === k) top.pop();
        while (i > 0 && better(hit, top[i - 1]!)) i--;
        top.splice(i, 0, hit);
      }
    const max = top[0]?.score ?? 0;
    return top.map(({ item, score }) => ({
      runId: item.id,
      query: item.query,
      answer: item.answer,
      ...(item.answerChars !== undefined ? { answerChars: item.answerChars } : {}),
      score: item.score,
      relevance: max > 0 ? score / max : 0,
    }));
  }

  private remove(entry: MemoryEntry): void {
    const i = this.insertionPoint(entry);
    // insertionPoint finds the first position not before the entry: the entry itself.
    if (this.order[i] === entry) this.order.splice(i, 1);
    this.entries.delete(entry.id);
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
function cutAnswer(run: MemoryEntry): MemoryEntry {
  const whole = run.answer.length <= MEMORY_ANSWER_CHARS;
  return {
    id: run.id,
    callerId: run.callerId,
    query: run.query,
    // A copy, not a slice: V8's slice of a long string keeps the whole string alive.
    answer: whole ? run.answer : Buffer.from(run.answer.slice(0, MEMORY_ANSWER_CHARS), 'utf8').toString('utf8'),
    answerChars: whole ? run.answerChars : run.answer.length,
    score: run.score,
    startedAt: run.startedAt,
  };
}

function sameEntry(a: MemoryEntry, b: MemoryEntry): boolean {
  return (
    a.callerId === b.callerId &&
    a.query === b.query &&
    a.answer === b.answer &&
    a.answerChars === b.answerChars &&
    a.score === b.score &&
    a.startedAt === b.startedAt
  );
}
