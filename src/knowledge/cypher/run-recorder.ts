/**
 * The run recorder: recordRun's group commit (a record arriving while a batch is being written
 * waits for the next batch; each batch is one write transaction), learning inside that transaction
 * (learn-from-runs.ts), and the approvals and decisions recorded before their run, which the run's
 * batch links to it. A record may also wait a little for others to join its batch (deferMs: the
 * engine's records of runs finishing one after another), and the store's reads that need it write it
 * at once (settle, pendingRuns).
 */
import type { ApprovalRecord, DecisionRecord, RunRecord } from '../store.ts';
import { memorySearchText } from '../run-memory.ts';
import { approvalParams, str } from '../rows.ts';
import type { CypherExecutor, Params } from './executor.ts';
import type { QuerySet } from './queries.ts';
import type { ViewCache } from './view-cache.ts';
import { applyLearnt, learnFromRuns, type Learnt } from './learn-from-runs.ts';
import { invalidRunRecord } from './run-record-validation.ts';

/** Most runs written in one group-commit transaction. */
export const MAX_RUN_BATCH = 256;
const UNLINKED_RUNS = 10_000;

interface PendingRun {
  run: RunRecord;
  /** When (Date.now()) the record must be written at the latest: its arrival plus its deferMs. */
  due: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** How long a deferred record may wait for others to share its transaction (RecordRunOptions.deferMs). */
export interface RecordRunOptions {
  /**
   * The write may wait up to this long (ms) so that records arriving meanwhile share its transaction:
   * runs finishing one after another cost one write transaction per window instead of one each. A read
   * that needs a waiting record (getRun of its id, listRuns, getProficiency, a findTeamConfig it could
   * change) writes it at once. Default 0: written as soon as the current batch is done.
   */
  deferMs?: number;
}

export class RunRecorder {
  /** recordRun calls waiting for the next group-commit batch. */
  #pending: PendingRun[] = [];
  /** The batch writer, while it runs (it stops when nothing is pending). */
  #flushing?: Promise<void>;
  /** While deferred records wait (RecordRunOptions.deferMs): the timer that starts their batch. */
  #deferred?: { timer: NodeJS.Timeout; at: number };
  /**
   * Set when something asks for everything pending to be written now (a record without deferMs, a
   * full batch, settle, drain, the deferral timer); cleared once nothing is pending. Without it the
   * writer stops after a batch when every record left may still wait, instead of writing records
   * that arrived during that batch at once, one or two per transaction.
   */
  #urgent = false;
  /**
   * Runs with approvals/decisions recorded by this process, so recordRun links them; other runs
   * skip those two statements. Bounded: the oldest entries (runs never recorded) are dropped.
   */
  readonly #unlinked = new Map<string, { approvals?: boolean; decisions?: boolean }>();
  /** The batch being written now. */
  #writing: RunRecord[] = [];
  readonly #exec: CypherExecutor;
  readonly #Q: QuerySet;
  readonly #cache: ViewCache;

  constructor(exec: CypherExecutor, Q: QuerySet, cache: ViewCache) {
    this.#exec = exec;
    this.#Q = Q;
    this.#cache = cache;
  }

  /**
   * Group commit: a record arriving while a batch is being written waits for the next batch, and
   * each batch is one write transaction with one statement per kind of write (UNWIND over the
   * batch), team and proficiency statistics aggregated here first so each key is written once.
   * The promise settles when the record's batch is committed (or has failed): a record is findable
   * (getRun, searchMemory, findTeamConfig) as soon as its promise resolves.
   */
  recordRun(run: RunRecord, options: RecordRunOptions = {}): Promise<void> {
    const invalid = invalidRunRecord(run);
    if (invalid) return Promise.reject(new TypeError(`recordRun: ${invalid}`));
    const deferMs = options.deferMs ?? 0;
    const due = Date.now() + deferMs;
    const written = new Promise<void>((resolve, reject) => this.#pending.push({ run, due, resolve, reject }));
    if (deferMs > 0 && this.#pending.length < MAX_RUN_BATCH) this.#defer(deferMs);
    else this.#startFlush();
    return written;
  }

  /** The records not yet committed (deferred, queued or being written): what a read may need to wait for. */
  pendingRuns(): readonly RunRecord[] {
    return [...this.#writing, ...this.#pending.map((p) => p.run)];
  }

  /** Writes every record handed over so far now (no deferral left) and settles once they are committed or failed. */
  async settle(): Promise<void> {
    if (this.#pending.length) this.#startFlush();
    await this.drain();
  }

  /** Starts the deferral window, or keeps the earlier one that ends sooner. */
  #defer(ms: number): void {
    if (this.#flushing) return; // the running writer sees this record when its batch is done
    const at = Date.now() + ms;
    if (this.#deferred && this.#deferred.at <= at) return;
    if (this.#deferred) clearTimeout(this.#deferred.timer);
    const timer = setTimeout(() => this.#startFlush(), ms);
    this.#deferred = { timer, at };
  }

  #startFlush(): void {
    this.#urgent = true;
    if (this.#deferred) {
      clearTimeout(this.#deferred.timer);
      this.#deferred = undefined;
    }
    this.#flushing ??= this.#flush();
  }

  /**
   * Writes batches until nothing is pending, or until every record left may still wait (they arrived
   * during the last batch with a deferMs): those start the next window. Never rejects (every outcome
   * goes to its caller).
   */
  async #flush(): Promise<void> {
    // Records handed over in the same turn (a deferral window ending, a settle) go in one batch.
    await Promise.resolve();
    try {
      while (this.#pending.length > 0) {
        // Records that arrived during the last batch and may still wait go with the next window's batch.
        if (!this.#urgent && this.#pending.every((p) => p.due > Date.now())) break;
        const batch = this.#takeBatch();
        if (this.#pending.length === 0) this.#urgent = false;
        this.#writing = batch.map((p) => p.run);
        try {
          await this.#writeBatch(batch);
        } finally {
          this.#writing = [];
        }
      }
    } finally {
      this.#flushing = undefined;
      this.#urgent = false;
      const next = Math.min(...this.#pending.map((p) => p.due));
      if (this.#pending.length) this.#defer(Math.max(1, next - Date.now()));
    }
  }

  /**
   * The oldest pending records, at most MAX_RUN_BATCH, one per run id and step key (a repeat waits
   * for the next batch), so a batch holds nothing that conflicts within it.
   */
  #takeBatch(): PendingRun[] {
    const ids = new Set<string>();
    // Step keys are `${runId}/${stepId}`: run "a" step "b/c" and run "a/b" step "c" would collide.
    const stepKeys = new Set<string>();
    const batch: PendingRun[] = [];
    const rest: PendingRun[] = [];
    for (const p of this.#pending) {
      const keys = p.run.steps.map((s) => `${p.run.id}/${s.id}`);
      if (batch.length < MAX_RUN_BATCH && !ids.has(p.run.id) && !keys.some((k) => stepKeys.has(k))) {
        ids.add(p.run.id);
        for (const k of keys) stepKeys.add(k);
        batch.push(p);
      } else rest.push(p);
    }
    this.#pending = rest;
    return batch;
  }

  /** One transaction for the batch; if it fails, each record alone, so one bad record fails only its caller. */
  async #writeBatch(batch: PendingRun[]): Promise<void> {
    try {
      await this.#writeRuns(batch.map((p) => p.run));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) {
        try {
          await this.#writeRuns([p.run]);
          p.resolve();
        } catch (own) {
          p.reject(own);
        }
      }
      return;
    }
    for (const p of batch) p.resolve();
  }

  /** Records distinct runs in one write transaction. */
  async #writeRuns(runs: RunRecord[]): Promise<void> {
    // The view is read before the transaction: on Kuzu its load would queue behind our own write.
    // No view (the read failed): the write goes on without its cached lookups, which only save reads.
    const view = await this.#cache.view().catch(() => undefined);
    const serial = this.#exec.serialWrites ? view : undefined;
    const links = new Map(runs.map((r) => [r.id, this.#unlinked.get(r.id)] as const));
    const runRows = runs.map(runParams);
    const steps = runs.flatMap((run) =>
      run.steps.map((s, idx) => ({
        id: `${run.id}/${s.id}`,
        runId: run.id,
        stepId: s.id,
        idx,
        specialist: s.specialist,
        objective: s.objective,
        status: s.status,
        output: s.output ?? '',
        error: s.error ?? '',
        durationMs: s.durationMs,
        tokens: s.tokens,
        costUsd: s.costUsd,
        toolCalls: JSON.stringify(s.toolCalls),
      })),
    );
    const calls = runs.flatMap((run) =>
      run.steps.flatMap((s) =>
        s.toolCalls.map((c) => ({ stepId: `${run.id}/${s.id}`, tool: c.tool, status: c.status })),
      ),
    );
    let learnt: Learnt | undefined;
    let applied = false;
    this.#cache.runWriteStarts();
    try {
      await this.#exec.write(async (q) => {
        learnt = undefined; // a retried transaction starts over
        // A run recorded again (same id) replaces its record but teaches nothing twice.
        const seen = new Set((await q(this.#Q.seenRuns, { ids: runRows.map((r) => r.id) })).map((r) => str(r.id)));
        const fresh = seen.size ? runs.filter((r) => !seen.has(r.id)) : runs;
        // Inserts first, statistics (updates of existing rows) last: Kuzu 0.11.3 does not always
        // roll back an update cleanly when a later statement fails (the next transaction touching
        // that row then fails with a write-write conflict, or the process crashes).
        if (fresh.length)
          await q(this.#Q.createRuns, { runs: seen.size ? runRows.filter((r) => !seen.has(r.id as string)) : runRows });
        if (seen.size) {
          await q(this.#Q.updateRuns, { runs: runRows.filter((r) => seen.has(r.id as string)) });
          await q(this.#Q.deleteStepsOfRuns, { runIds: [...seen] });
        }
        if (steps.length) await q(this.#Q.createSteps, { steps });
        if (calls.length) await q(this.#Q.linkStepTools, { calls });
        // Approvals and decisions recorded before the run (by this process) are linked to it now.
        for (const run of runs) {
          const link = links.get(run.id);
          if (seen.has(run.id) || link?.approvals || link?.decisions)
            await q(this.#Q.linkRunDecisions, { runId: run.id });
        }
        if (fresh.length) learnt = await learnFromRuns(q, this.#Q, fresh, view, serial);
        // One writer at a time: the next transaction computes from the view, so update it before that starts.
        if (serial && learnt) {
          applyLearnt(serial, learnt);
          applied = true;
        }
      });
    } catch (err) {
      // Only the commit can fail after the view was updated: reload what is really stored.
      if (applied) this.#cache.discard();
      throw err;
    }
    for (const run of runs) this.#unlinked.delete(run.id);
    const committed = learnt as Learnt | undefined;
    await this.#cache.writeThrough((v) => {
      if (committed && !applied) applyLearnt(v, committed);
      for (const run of runs) v.recordRun(memoryEntryOf(run));
    });
  }

  async recordApproval(approval: ApprovalRecord): Promise<void> {
    await this.#exec.write(async (q) => {
      await q(this.#Q.upsertApproval, approvalParams(approval));
      await q(this.#Q.linkRunDecisions, { runId: approval.runId });
    });
    this.#noteUnlinked(approval.runId, 'approvals');
  }

  async recordDecision(decision: DecisionRecord): Promise<void> {
    await this.#exec.write(async (q) => {
      await q(this.#Q.upsertDecision, {
        ...decision,
        callerId: decision.callerId ?? '',
        verdict: JSON.stringify(decision.verdict),
      });
      await q(this.#Q.linkRunDecisions, { runId: decision.runId });
    });
    this.#noteUnlinked(decision.runId, 'decisions');
  }

  /** Settles once every record already handed to recordRun is written (deferred ones at once). */
  async drain(): Promise<void> {
    if (this.#pending.length) this.#startFlush();
    while (this.#flushing) await this.#flushing;
  }

  #noteUnlinked(runId: string, kind: 'approvals' | 'decisions'): void {
    const entry = this.#unlinked.get(runId) ?? {};
    entry[kind] = true;
    this.#unlinked.set(runId, entry);
    if (this.#unlinked.size > UNLINKED_RUNS) this.#unlinked.delete(this.#unlinked.keys().next().value!);
  }
}

function runParams(run: RunRecord): Params {
  return {
    id: run.id,
    threadId: run.threadId,
    query: run.query,
    protocol: run.protocol,
    callerId: run.callerId,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    status: run.status,
    answer: run.answer ?? null,
    error: run.error ?? null,
    tokens: run.tokens,
    costUsd: run.costUsd,
    score: run.score,
    plan: run.plan ? JSON.stringify(run.plan) : null,
    teamConfigId: run.teamConfigId ?? null,
    forkedFrom: run.forkedFrom ? JSON.stringify(run.forkedFrom) : null,
    searchText: memorySearchText(run),
  };
}

/** What the view's memory search keeps of a run. */
export const memoryEntryOf = (run: RunRecord) => ({
  id: run.id,
  callerId: run.callerId,
  query: run.query,
  answer: run.answer ?? '',
  score: run.score,
  status: run.status,
  startedAt: run.startedAt,
});
