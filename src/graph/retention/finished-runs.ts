/**
 * Finished runs still replayable (GET /api/runs/:id/events, SSE Last-Event-ID, A2A tasks/get, …), in
 * the order they finished: each for PARLEY_RUN_RETENTION_MS, PARLEY_RUN_RETENTION_MAX at most. Past
 * that bound the oldest run of the caller holding the most goes first: fair per caller, so one caller's
 * runs never push out another's while it holds fewer (a caller keeps at least max ÷ callers holding
 * runs). Dropping a run also forgets it in the run store.
 *
 * With a run store a finished run leaves the heap at once: once the store is seen to hold its whole
 * event log, its handle reads the store (stored-handle.ts) and keeps only the run's ids. A run
 * whose events the store could not commit (the store degraded), a run stopped as it was (suspended)
 * and every run of an engine without a store keep their event log in memory, within a byte budget
 * (PARLEY_RUN_RETENTION_MB), the oldest dropped first once it is exceeded.
 */
import type { ApprovalPort } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import type { RunStore } from '../../store/runs/run-store.ts';
import type { RunHandle } from '../run/engine-port.ts';
import type { RunEventLog } from '../run/event-log.ts';
import { storedRunHandle, type StoredRunIds, type StoredRunSource } from './stored-handle.ts';

/** Longer than any id Parley or a client gives a run (UUIDs; protocol ids are far shorter). */
const MAX_STORED_ID_CHARS = 256;

export interface RetentionLimits {
  retentionMs: number;
  max: number;
  /** Heap the in-memory event logs may keep, in bytes. */
  budgetBytes: number;
}

/** One per retained run (up to PARLEY_RUN_RETENTION_MAX): its caller is the handle's. */
interface Finished {
  handle: RunHandle;
  expiresAt: number;
  /** What its in-memory event log is estimated to keep on the heap; 0 when it is served from the store. */
  bytes: number;
}

/**
 * Heap an event log keeps, estimated from its JSON (two bytes a character: property names, numbers and
 * object headers cost about what one-byte strings save). Measured once per run kept in memory.
 */
export function logBytes(log: RunEventLog): number {
  return JSON.stringify(log.snapshot()).length * 2;
}

export class FinishedRuns {
  readonly #runs = new Map<string, Finished>();
  /** Each caller's finished runs, oldest first. */
  readonly #byCaller = new Map<string, Set<string>>();
  readonly #limits: RetentionLimits;
  readonly #now: () => number;
  readonly #store?: RunStore;
  readonly #logger: Logger;
  #bytes = 0;
  #sweep?: ReturnType<typeof setInterval>;

  /** What every stored handle reads from (one object, not two fields in each handle). */
  readonly #source?: StoredRunSource;

  constructor(
    limits: RetentionLimits,
    deps: { now: () => number; logger: Logger; store?: RunStore; approvals: ApprovalPort },
  ) {
    this.#limits = limits;
    this.#now = deps.now;
    this.#logger = deps.logger;
    this.#store = deps.store;
    if (deps.store) this.#source = { store: deps.store, approvals: deps.approvals };
  }

  get size(): number {
    return this.#runs.size;
  }

  /** Heap the finished runs kept in memory hold, estimated (logBytes). */
  get bytesInMemory(): number {
    return this.#bytes;
  }

  has(id: string): boolean {
    return this.#runs.has(id);
  }

  get(id: string): RunHandle | undefined {
    return this.#runs.get(id)?.handle;
  }

  /**
   * A run that just ended here, with its live handle and event log. With a store it moves to the store
   * once the store holds its last event; until then (or if never) it is served from memory.
   */
  add(handle: RunHandle, log: RunEventLog): void {
    const entry: Finished = {
      handle,
      expiresAt: this.#now() + this.#limits.retentionMs,
      bytes: 0,
    };
    this.#insert(handle.id, entry);
    const finished = log.snapshot(log.lastSeq - 1)[0]?.type === 'run.finished';
    if (this.#source && finished) void this.#moveToStore(handle, entry, log, this.#source);
    else this.#keepInMemory(handle.id, entry, log);
  }

  /** A run finished before this process started, or on another replica: served from the store. */
  addStored(ids: StoredRunIds, finishedAt: number): void {
    if (!this.#source || this.#runs.has(ids.id)) return;
    this.#insert(ids.id, {
      handle: storedRunHandle(ids, this.#source),
      expiresAt: finishedAt + this.#limits.retentionMs,
      bytes: 0,
    });
  }

  /**
   * A run finished within retention that only the store holds (before this process started, or on
   * another replica), made replayable here: false when there is none. An id no run can have is not
   * looked up (LMDB refuses keys past ~2 KB: a 500).
   */
  async fromStore(runId: string): Promise<boolean> {
    if (!this.#store || runId.length > MAX_STORED_ID_CHARS) return false;
    const stored = await this.#store.runs.get(runId);
    if (!stored?.ending || stored.status === 'running') return false;
    if (stored.updatedAt + this.#limits.retentionMs <= this.#now()) return false;
    this.addStored(stored, stored.updatedAt);
    return true;
  }

  /** Stops the sweep and lets go of every finished run (the store keeps them for the next start). */
  close(): void {
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
    this.#runs.clear();
    this.#byCaller.clear();
    this.#bytes = 0;
  }

  #insert(id: string, entry: Finished): void {
    this.#runs.set(id, entry);
    const own = this.#byCaller.get(entry.handle.callerId) ?? new Set<string>();
    this.#byCaller.set(entry.handle.callerId, own.add(id));
    // The count cap bounds retention under load, whatever each run keeps.
    while (this.#runs.size > this.#limits.max) this.#drop(this.#oldestOfLargest());
    this.#sweepLater();
  }

  /** The oldest run of the caller holding the most (of tied callers, the oldest run of all). */
  #oldestOfLargest(): string {
    let pick: string | undefined;
    let size = 0;
    for (const runs of this.#byCaller.values()) {
      const oldest = runs.values().next().value as string;
      const older = pick !== undefined && this.#runs.get(oldest)!.expiresAt < this.#runs.get(pick)!.expiresAt;
      if (runs.size > size || (runs.size === size && older)) [pick, size] = [oldest, runs.size];
    }
    return pick!;
  }

  async #moveToStore(handle: RunHandle, entry: Finished, log: RunEventLog, source: StoredRunSource): Promise<void> {
    let committed = false;
    try {
      const last = await source.store.events.read(handle.id, log.lastSeq - 1, 1);
      committed = last[0]?.seq === log.lastSeq;
    } catch {
      // Read as not committed: the run stays in memory.
    }
    if (this.#runs.get(handle.id) !== entry) return; // dropped meanwhile
    if (committed) entry.handle = storedRunHandle(handle, source);
    else this.#keepInMemory(handle.id, entry, log);
  }

  #keepInMemory(id: string, entry: Finished, log: RunEventLog): void {
    entry.bytes = logBytes(log);
    this.#bytes += entry.bytes;
    if (this.#bytes <= this.#limits.budgetBytes) return;
    for (const [oldest, e] of this.#runs) {
      if (this.#bytes <= this.#limits.budgetBytes) break;
      if (e.bytes > 0) this.#drop(oldest);
    }
  }

  /** Starts the sweep of expired finished runs, unless it runs already or nothing is retained. */
  #sweepLater(): void {
    if (this.#sweep || this.#runs.size === 0) return;
    const every = Math.max(10, Math.min(this.#limits.retentionMs, 1000));
    this.#sweep = setInterval(() => this.#sweepExpired(), every);
    this.#sweep.unref?.();
  }

  #sweepExpired(): void {
    const now = this.#now();
    // Finish order is expiry order (one retention for all), so stop at the first one still fresh.
    for (const [id, e] of this.#runs) {
      if (e.expiresAt > now) break;
      this.#drop(id);
    }
    if (this.#runs.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  #drop(id: string): void {
    const entry = this.#runs.get(id);
    if (!entry) return;
    this.#runs.delete(id);
    const own = this.#byCaller.get(entry.handle.callerId);
    own?.delete(id);
    if (own?.size === 0) this.#byCaller.delete(entry.handle.callerId);
    this.#bytes -= entry.bytes;
    this.#store?.forget(id).catch((err: unknown) => {
      this.#logger.error('run store: forgetting a run failed', { runId: id, error: String(err) });
    });
  }
}
