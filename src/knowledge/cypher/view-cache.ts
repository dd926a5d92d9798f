/**
 * The store's cached KnowledgeView (view.ts): loaded from the database on first use, our own
 * committed writes applied to it at once (writeThrough), and, where other processes may write the
 * same database (Neo4j), a re-read merged in the background every refreshMs. A refresh that raced
 * with a write of ours does not replace what that write changed (the write counters).
 */
import { KnowledgeView, type ViewSnapshot } from '../view.ts';
import { MEMORY_WINDOW, type MemoryEntry } from '../run-memory.ts';
import { num, optNum, proficiencyFromNode, specialistFromNode, str, toolFromNode } from '../rows.ts';
import { nodeOf, type CypherExecutor, type Row } from './executor.ts';
import type { QuerySet } from './queries.ts';

export interface ViewOptions {
  /**
   * How often the in-memory view (specialists, proficiencies, team statistics) re-reads the
   * database for changes made by other processes. Infinity when this process is the only writer
   * (embedded Kuzu holds a file lock); our own writes are always written through at once.
   */
  refreshMs: number;
  /**
   * How many of the most recent runs (by startedAt) the view holds for searchMemory; older runs
   * are not searched. Default MEMORY_WINDOW (5000).
   */
  memoryWindow?: number;
  now?: () => number;
}

export class ViewCache {
  #loading?: Promise<KnowledgeView>;
  #readAt = 0;
  #refreshing = false;
  #registryWrites = 0;
  #runWrites = 0;
  readonly #exec: CypherExecutor;
  readonly #Q: QuerySet;
  readonly #now: () => number;
  readonly #refreshMs: number;
  readonly #memoryWindow: number;

  constructor(exec: CypherExecutor, Q: QuerySet, options: ViewOptions) {
    this.#exec = exec;
    this.#Q = Q;
    this.#now = options.now ?? Date.now;
    this.#refreshMs = options.refreshMs;
    this.#memoryWindow = options.memoryWindow ?? MEMORY_WINDOW;
    if (!(Number.isInteger(this.#memoryWindow) && this.#memoryWindow >= 0)) {
      throw new RangeError(`memoryWindow must be a whole number >= 0, got ${options.memoryWindow}`);
    }
  }

  /** The view, loaded on first use; past refreshMs a re-read is merged in the background. */
  view(): Promise<KnowledgeView> {
    if (!this.#loading) {
      const startedAt = this.#now();
      const loading = this.#readSnapshot().then((snapshot) => {
        this.#readAt = startedAt;
        return new KnowledgeView(snapshot, { memoryWindow: this.#memoryWindow });
      });
      // A failed load is not kept: the next read tries again.
      loading.catch(() => {
        if (this.#loading === loading) this.#loading = undefined;
      });
      this.#loading = loading;
    } else if (!this.#refreshing && this.#now() - this.#readAt >= this.#refreshMs) {
      this.#refresh(this.#loading);
    }
    return this.#loading;
  }

  /** A registry write of ours is starting: a refresh read before it commits must not replace specialists. */
  registryWriteStarts(): void {
    this.#registryWrites++;
  }

  /** A run write of ours is starting: a refresh read before it commits must not replace runs. */
  runWriteStarts(): void {
    this.#runWrites++;
  }

  /** Applies a committed write of ours to the view (after its load, if it is still loading). */
  async writeThrough(apply: (view: KnowledgeView) => void): Promise<void> {
    const pending = this.#loading;
    if (!pending) return;
    let view: KnowledgeView;
    try {
      view = await pending;
    } catch {
      return; // the next load reads the committed write
    }
    apply(view);
  }

  /** Drops the view (it may hold what never committed): the next read loads what is really stored. */
  discard(): void {
    this.#loading = undefined;
  }

  #refresh(current: Promise<KnowledgeView>): void {
    this.#refreshing = true;
    const startedAt = this.#now();
    const registryWrites = this.#registryWrites;
    const runWrites = this.#runWrites;
    Promise.all([current, this.#readSnapshot()])
      .then(([view, snapshot]) =>
        view.merge(snapshot, {
          specialists: registryWrites === this.#registryWrites,
          runs: runWrites === this.#runWrites,
        }),
      )
      .catch(() => undefined) // keep serving the current view; retried after refreshMs
      .finally(() => {
        this.#readAt = startedAt;
        this.#refreshing = false;
      });
  }

  #readSnapshot(): Promise<ViewSnapshot> {
    const Q = this.#Q;
    return this.#exec.read(async (q) => {
      const specialists = (await q(Q.listSpecialists)).map((r) => specialistFromNode(nodeOf(r, 's')));
      const proficiencies = (await q(Q.listProficiencies)).map((r) => {
        const p = nodeOf(r, 'p');
        return { id: str(p.id), totals: proficiencyFromNode(p) };
      });
      const teams = (await q(Q.listTeams)).map((r) => ({
        id: str(r.id),
        callerId: str(r.callerId),
        pattern: str(r.pattern),
        uses: num(r.uses),
        successes: num(r.successes),
        avgScore: num(r.avgScore),
      }));
      const runs =
        this.#memoryWindow === 0 ? [] : (await q(Q.recentRuns, { limit: this.#memoryWindow })).map(memoryEntryFromRow);
      const tools = (await q(Q.listTools)).map((r) => toolFromNode(nodeOf(r, 't')));
      return { specialists, proficiencies, teams, runs, tools };
    });
  }
}

function memoryEntryFromRow(r: Row): MemoryEntry {
  return {
    id: str(r.id),
    callerId: str(r.callerId),
    query: str(r.query),
    answer: str(r.answer),
    score: optNum(r.score),
    status: str(r.status) as MemoryEntry['status'],
    startedAt: str(r.startedAt),
  };
}
