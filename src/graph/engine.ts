/**
 * Engine: runs many isolated runs concurrently. Each run is a RunState moved through the L0 nodes
 * by one loop (with a watchdog on transitions), and an event log any number of consumers can read.
 * Finished runs stay replayable for config.engine.runRetentionMs, then are dropped; at most
 * config.engine.runRetentionMax of them are kept, the oldest finished dropped first.
 *
 * With a run store (EngineDeps.runStore, docs/durability.md) every run is checkpointed as it goes and
 * retention applies to the store too; recover() picks up, at start, what the last process left: finished
 * runs stay replayable, a run that waited on a human waits again, a run in progress resumes or ends failed.
 */
import { randomUUID } from 'node:crypto';
import type { NodeName, RunEnding } from './events.ts';
import { RUN_MODES, canSee, ownerIdOf, type Caller, type RunRequest } from './run-request.ts';
import type { RunEngine, RunHandle, RunOptions, RunResult } from './contract.ts';
import { ADMITTED, admissionGate } from './admission.ts';
import type { EngineDeps, SpanRunner } from './engine-deps.ts';
import { RunEventLog } from './run-event-log.ts';
import { runRecordOf } from './run-record.ts';
import { BudgetExceededError } from './usage.ts';
import { CallerLedger } from './ledger.ts';
import { ledgerPath, ledgerWriter, readLedgerFile } from './ledger-file.ts';
import { admitDirectCall, type DirectCall, type DirectCallRequest } from './direct-call.ts';
import { SpecialistDirectory } from './specialist-directory.ts';
import { createRunState, emit, type EngineContext, type RunOutcome, type RunState } from './state.ts';
import type { NodeFn, NodeResult } from './nodes/node.ts';
import { usageGuard } from './nodes/usage-guard.ts';
import { router } from './nodes/router.ts';
import { directAnswer } from './nodes/direct-answer.ts';
import { memory } from './nodes/memory.ts';
import { dispatcher } from './nodes/dispatcher.ts';
import { executionJoiner, researchJoiner } from './nodes/joiner.ts';
import { verifier } from './nodes/verifier.ts';
import { planner } from './nodes/planner.ts';
import { synthesizer } from './nodes/synthesizer.ts';
import { council } from './nodes/council.ts';
import { loadHistory, saveTurn } from './thread-turns.ts';
import { contextWindowOf } from '../llm/context-windows.ts';
import { MAX_THREAD_ID_CHARS } from '../store/threads/types.ts';
import { silentLogger } from '../log.ts';
import { tracingOff, withSpan } from '../telemetry.ts';
import type { StoredRun } from '../store/runs/run-store.ts';
import type { ApprovalRequest } from '../hitl/types.ts';
import type { GraphEvent, GraphEventOf } from './events.ts';
import type { RunRecord } from '../knowledge/store.ts';
import { persistEvents } from './durable/persist-events.ts';
import { storedRunHandle } from './durable/stored-handle.ts';
import { INTERRUPTED, resumptionOf, unfinishedToolCalls } from './durable/resume-plan.ts';
import { ReplicaRuns } from './replicas/replica-runs.ts';
import { RunSuspendedError } from './run-suspended.ts';
import { shareLedger } from './replicas/shared-ledger.ts';
import { CANCEL_CONFIRM_MS, cancelAndSettle, type CancelAnswer } from './cancel-run.ts';
import { DeadlockError } from './dynamic/team.ts';
import type { ApprovalOutcome } from '../hitl/types.ts';
import type { StoredApproval } from '../store/runs/run-store.ts';

const NODES: Record<NodeName, NodeFn> = {
  usage_guard: usageGuard,
  router,
  direct_answer: directAnswer,
  memory,
  dispatcher,
  research_joiner: researchJoiner,
  execution_joiner: executionJoiner,
  verifier,
  planner,
  synthesizer,
  council,
};

/** Why a run was cancelled (engine.cancel or shutdown); its message becomes run.finished.error. */
export class RunCancelledError extends Error {
  override name = 'RunCancelledError';
}

export { RunSuspendedError } from './run-suspended.ts';

/** The abort reason that stops whatever a finished run left behind: one instance, no stack trace per run. */
const RUN_FINISHED = new RunCancelledError('run finished');

/**
 * Default spans through src/telemetry.ts. With telemetry off, fn runs bare: a no-op span still
 * costs two async frames per span, which every in-flight run would hold.
 */
const otelSpan: SpanRunner = (name, attributes, fn) => (tracingOff() ? fn() : withSpan(name, attributes, () => fn()));

/**
 * The deps with defaults filled in, plus the engine-wide caller ledger (restored from the data
 * dir's ledger file, so a restart keeps every caller's and thread's window spend).
 */
export function createEngineContext(deps: EngineDeps): EngineContext {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const file = ledgerPath(deps.config.knowledge.dataDir);
  const restore = file ? readLedgerFile(file, logger) : undefined;
  return {
    ...deps,
    now,
    logger,
    span: deps.span ?? otelSpan,
    prices:
      deps.prices ?? ('prices' in deps.model ? (deps.model as { prices?: EngineDeps['prices'] }).prices : undefined),
    maxOutputTokens: deps.maxOutputTokens ?? (() => undefined),
    contextWindow: deps.contextWindow ?? ((_role, model) => contextWindowOf({}, model)),
    ownModelRoles: deps.ownModelRoles ?? [],
    ledger: new CallerLedger(deps.config.budget.caller, now, { thread: deps.config.budget.thread, restore }),
    saveLedger: file ? ledgerWriter(file, logger) : undefined,
    directory: new SpecialistDirectory(deps.store, { now }),
  };
}

interface Entry {
  /** Dropped once the run is done (then it is in #finished): a retained run keeps only its handle (event log and result). */
  run?: RunState;
  handle: RunHandle;
  expiresAt?: number;
}

export class Engine implements RunEngine {
  readonly #ctx: EngineContext;
  readonly #runs = new Map<string, Entry>();
  /** The finished runs still retained, in the order they finished (so oldest first). */
  readonly #finished = new Map<string, Entry>();
  #sweep?: ReturnType<typeof setInterval>;
  /** With a shared cluster and run store: runs leased, followed and taken over across replicas. */
  readonly #replicas?: ReplicaRuns;
  #unshareLedger?: () => void;
  readonly #takeoverListeners = new Set<(runId: string) => void>();

  constructor(deps: EngineDeps) {
    this.#ctx = createEngineContext(deps);
    const { cluster, runStore, logger, now, config } = this.#ctx;
    if (cluster?.shared && runStore) {
      this.#unshareLedger = shareLedger(this.#ctx.ledger, cluster, logger);
      this.#replicas = new ReplicaRuns({
        cluster,
        store: runStore,
        leaseMs: config.knowledge.replicaLeaseMs,
        logger,
        now,
        hooks: {
          isLocal: (id) => this.#runs.has(id),
          localRunning: () => [...this.#runs.values()].filter((e) => e.run).map((e) => e.handle.id),
          resume: async (run, pending, cancelled) => {
            await this.#resumeStored(run, pending, cancelled);
            for (const listener of this.#takeoverListeners) listener(run.id);
          },
          cancelLocal: (id, reason) => (this.#runs.get(id)?.run ? this.cancel(id, reason) : false),
          suspendLocal: (id, reason) => this.#suspend(id, reason),
          retainFinished: (run) => this.#retainStored(run),
          syncApprovals: (pending) => this.#ctx.approvals.syncRemote?.(pending),
        },
      });
    }
  }

  /** Runs still in progress. */
  get activeRuns(): number {
    return this.#runs.size - this.#finished.size;
  }

  /** Runs held in memory (in progress plus finished ones still retained for replay). */
  get retainedRuns(): number {
    return this.#runs.size;
  }

  start(request: RunRequest, options: RunOptions = {}): RunHandle {
    const ctx = this.#ctx;
    const id = request.runId ?? randomUUID();
    const threadId = request.threadId ?? id;
    const startedAt = ctx.now();
    if (this.#runs.has(id)) {
      // Never disturb the run that owns the id: answer with a detached, already failed run.
      const log = new RunEventLog(id, { buffer: ctx.config.engine.eventBuffer, now: ctx.now });
      return this.#failedHandle(log, threadId, request, `run id "${id}" is already in use`);
    }
    const record: StoredRun = {
      id,
      callerId: ownerIdOf(request),
      threadId,
      status: 'running',
      request,
      createdAt: startedAt,
      updatedAt: startedAt,
    };
    return this.#launch(record, [], undefined, options);
  }

  /**
   * Starts (or, after a restart, resumes) the run of `record`, its log continuing after `restored`.
   * `options` (a session's tools) belong to the live process: a resumed run has none.
   */
  #launch(
    record: StoredRun,
    restored: GraphEvent[],
    resume?: (run: RunState) => void,
    options: RunOptions = {},
  ): RunHandle {
    const ctx = this.#ctx;
    const { id, threadId } = record;
    const request = record.request as RunRequest;
    // The persister reads the run's plan; the run is made after its log.
    const made: { run?: RunState } = {};
    const store = ctx.runStore;
    if (store && restored.length === 0) {
      store.runs.put(record).catch((err: unknown) => {
        ctx.logger.error('run store: recording a run failed', { runId: id, error: String(err) });
      });
    }
    const persisted = store ? persistEvents(store, { record, plan: () => made.run?.plan }, ctx.logger) : undefined;
    // Replicas: followers on other processes are told when the stored log grows.
    const persist = persisted && this.#replicas ? this.#replicas.signalEvents(id, persisted) : persisted;
    const log = new RunEventLog(id, {
      buffer: ctx.config.engine.eventBuffer,
      now: ctx.now,
      ...(persist ? { persist } : {}),
      restored,
    });
    const admission = admissionGate();
    const run = createRunState(
      {
        id,
        threadId,
        request,
        startedAt: record.createdAt,
        log,
        admit: admission.settle,
        ...(options.tools ? { sessionTools: options.tools } : {}),
      },
      ctx,
    );
    made.run = run;
    // A resumed run goes on counting from what it had spent (its budget and its reported usage).
    const spent = restored.findLast((e): e is GraphEventOf<'usage'> => e.type === 'usage');
    if (spent) Object.assign(run.meter.totals, spent.usage);
    resume?.(run);
    const result = this.#execute(run, restored.length > 0);
    const handle: RunHandle = {
      id,
      threadId,
      callerId: run.callerId,
      admission: admission.promise,
      result,
      events: (afterSeq) => log.events(afterSeq),
      lastSeq: () => log.lastSeq,
    };
    const entry: Entry = { run, handle };
    this.#runs.set(id, entry);
    this.#replicas?.started({ id, callerId: run.callerId, threadId }, restored.length > 0);
    void result.then(() => {
      this.#replicas?.ended(id, !(run.abort.signal.reason instanceof RunSuspendedError));
      this.#retain(entry);
      void this.#saveLedger(); // the ledger writer serializes its writes and logs a failure itself
    });
    return handle;
  }

  /**
   * A model call made outside any run (the OpenAI-compatible passthrough), admitted and charged
   * through the same caller rate limit, caller and thread budgets and price rules as a run's calls.
   */
  admitDirectCall(request: DirectCallRequest): DirectCall {
    return admitDirectCall(this.#ctx, request, () => void this.#saveLedger()); // failures logged by the writer
  }

  /** Writes the ledger file (no-op in memory); writes are serialized, failures logged. */
  #saveLedger(): Promise<void> {
    const save = this.#ctx.saveLedger;
    return save ? save(this.#ctx.ledger.snapshot()) : Promise.resolve();
  }

  cancel(runId: string, reason?: string): boolean {
    const entry = this.#runs.get(runId);
    if (!entry && this.#replicas?.remote(runId)) {
      // Executing on another replica: the cancel goes there (docs/deployment.md).
      this.#replicas.cancelRemote(runId, reason).catch((err: unknown) => {
        this.#ctx.logger.warn('replicas: sending a cancel failed', { runId, error: String(err) });
      });
      return true;
    }
    if (!entry?.run || entry.run.abort.signal.aborted) return false;
    entry.run.abort.abort(new RunCancelledError(reason ? `cancelled: ${reason}` : 'cancelled'));
    this.#cancelApprovals(runId);
    return true;
  }

  cancelAndWait(handle: RunHandle, reason?: string): Promise<CancelAnswer> {
    return cancelAndSettle(handle, () => this.cancel(handle.id, reason), CANCEL_CONFIRM_MS);
  }

  async find(runId: string, caller?: Caller): Promise<RunHandle | undefined> {
    const held = this.get(runId, caller);
    const store = this.#ctx.runStore;
    if (held || !store) return held;
    const stored = await store.runs.get(runId);
    const retainedUntil = (stored?.updatedAt ?? 0) + this.#ctx.config.engine.runRetentionMs;
    if (!stored?.ending || stored.status === 'running' || retainedUntil <= this.#ctx.now()) return undefined;
    this.#retainStored(stored);
    return this.get(runId, caller);
  }

  get(runId: string, caller?: Caller): RunHandle | undefined {
    const handle = this.#runs.get(runId)?.handle ?? this.#replicas?.remote(runId);
    return handle && canSee(caller, handle.callerId) ? handle : undefined;
  }

  executesHere(runId: string): boolean {
    return this.#runs.has(runId) || !this.#replicas?.remote(runId);
  }

  onTakeover(listener: (runId: string) => void): () => void {
    this.#takeoverListeners.add(listener);
    return () => this.#takeoverListeners.delete(listener);
  }

  /**
   * With a run store, stops every run that waits on a human as it is (checkpointed), so the next start
   * lets it wait again under the same approval ids. A shutdown does this first: such a run would not
   * finish within any grace period, and the streams following it end at once instead of holding the
   * shutdown until the grace period runs out (their clients reconnect with Last-Event-ID).
   */
  async suspendWaiting(): Promise<void> {
    const { runStore, approvals } = this.#ctx;
    if (!runStore || !approvals.suspendRun) return;
    const waiting = [...this.#runs.values()].filter((e) => e.run && approvals.listPending(e.handle.id).length);
    for (const e of waiting) this.#suspend(e.handle.id, 'the run waits on a human: suspended until the next start');
    await Promise.all(waiting.map((e) => e.handle.result));
  }

  /** Stops a run as it is, checkpointed: the next start (or another replica) goes on with it. */
  #suspend(runId: string, reason: string): void {
    const run = this.#runs.get(runId)?.run;
    if (!run) return;
    this.#ctx.approvals.suspendRun?.(runId);
    run.abort.abort(new RunSuspendedError(reason));
  }

  /**
   * Cancels every running run, waits for them to finish, and drops all retained runs. With a run
   * store, a run waiting on a human is not cancelled: it stops as it is, checkpointed, and the next
   * start lets it wait again under the same approval ids.
   */
  async close(reason = 'engine shutting down'): Promise<void> {
    await this.suspendWaiting();
    if (this.#replicas) {
      // One replica of several stopping (a rolling deploy): its runs go on elsewhere from their checkpoints.
      const running = [...this.#runs.values()].filter((e) => e.run);
      for (const e of running) this.#suspend(e.handle.id, 'this replica is stopping: another one goes on with the run');
      await Promise.all(running.map((e) => e.handle.result));
      this.#replicas.close();
      this.#unshareLedger?.();
    }
    const running = [...this.#runs.values()].filter((e) => e.run);
    for (const e of running) this.cancel(e.handle.id, reason);
    await Promise.all(running.map((e) => e.handle.result));
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
    this.#runs.clear();
    this.#finished.clear();
    await this.#saveLedger();
  }

  async #execute(run: RunState, resumed = false): Promise<RunResult> {
    const ctx = this.#ctx;
    if (!resumed)
      emit(run, {
        type: 'run.started',
        threadId: run.threadId,
        query: run.request.query,
        mode: run.mode,
        protocol: run.request.protocol,
      });
    const wall = setTimeout(
      () =>
        run.abort.abort(
          new BudgetExceededError(`wall time budget: the run took longer than ${run.meter.budget.wallTimeMs} ms`),
        ),
      run.meter.budget.wallTimeMs,
    );
    wall.unref?.();
    try {
      const invalid = invalidRequest(run.request);
      // A run that cannot resume after a restart comes with its outcome: it only ends.
      if (!run.outcome && invalid) run.outcome = { status: 'failed', error: invalid };
      else if (!run.outcome)
        await ctx.span(
          'run',
          { 'parley.run_id': run.id, 'parley.protocol': run.request.protocol, 'parley.mode': run.mode },
          async () => {
            run.history = await loadHistory(run, ctx);
            await this.#loop(run);
          },
        );
    } catch (err) {
      run.outcome = outcomeOf(run, err);
    } finally {
      clearTimeout(wall);
    }
    if (run.abort.signal.reason instanceof RunSuspendedError) return this.#suspended(run);
    if (run.abort.signal.aborted && (!run.outcome || run.outcome.status === 'completed'))
      run.outcome = outcomeOf(run, run.abort.signal.reason);
    const outcome: RunOutcome =
      run.outcome ??
      (run.answer !== undefined
        ? { status: 'completed' }
        : { status: 'failed', error: 'the run ended without an answer' });
    run.outcome = outcome;
    // A run that ended before the guard decided (invalid request, cancelled) was not refused.
    run.admit(ADMITTED);
    if (!run.abort.signal.aborted) run.abort.abort(RUN_FINISHED);
    this.#cancelApprovals(run.id);

    const durationMs = ctx.now() - run.startedAt;
    const usage = { ...run.meter.totals };
    // The same fields end the event stream and settle the result.
    const ending: RunEnding = {
      status: outcome.status,
      ...(run.answer !== undefined && outcome.status === 'completed' ? { answer: run.answer } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(run.failedSteps?.length ? { failedSteps: run.failedSteps } : {}),
      ...(run.sources?.length && outcome.status === 'completed' ? { sources: run.sources } : {}),
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
      usage,
      durationMs,
    };
    // The answer goes out first; execution memory is written after it (off the critical path),
    // and `result` settles only once the record is written (so awaiting it sees the store updated).
    // The turn is in its thread before run.finished goes out: a client that saw the end can ask again at once.
    if (!invalidRequest(run.request)) await saveTurn(run, ctx, ending);
    emit(run, { type: 'run.finished', ...ending });
    await this.#record(run, outcome, durationMs);
    return { runId: run.id, threadId: run.threadId, ...ending };
  }

  /** The L0 loop: node → next node, racing each node against the run's abort signal. */
  async #loop(run: RunState): Promise<void> {
    const ctx = this.#ctx;
    const signal = run.abort.signal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Raced against each node below, which handles the rejection; this only keeps a race never run from being unhandled.
    aborted.catch(() => undefined);
    try {
      let node: NodeName = 'usage_guard';
      for (let transitions = 1; ; transitions++) {
        if (signal.aborted) throw signal.reason;
        if (transitions > ctx.config.engine.maxTransitions) {
          run.outcome = {
            status: 'failed',
            error: `watchdog: the run made more than ${ctx.config.engine.maxTransitions} node transitions (last node: ${node})`,
          };
          return;
        }
        run.node = node;
        emit(run, { type: 'node.started', node });
        const t0 = ctx.now();
        const current: NodeName = node;
        const next: NodeResult = await Promise.race([
          ctx.span(`node ${current}`, { 'parley.run_id': run.id, 'parley.node': current }, () =>
            NODES[current](run, ctx),
          ),
          aborted,
        ]);
        emit(run, { type: 'node.finished', node: current, durationMs: ctx.now() - t0, next });
        if (next === 'end' || run.outcome) return;
        node = next;
      }
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  async #record(run: RunState, outcome: RunOutcome, durationMs: number): Promise<void> {
    const record = runRecordOf(run, outcome, durationMs);
    if (!record) return;
    // The knowledge store commits records in groups: the run store keeps this one until it is in.
    const runStore = this.#ctx.runStore;
    const stored = runStore ? this.#storedEnd(run, record) : undefined;
    // A failed put is not dropped: the run store keeps retrying it in order, logs it and marks the run
    // degraded (store/runs/reliable-run-store.ts); the run's result must not wait for the database.
    if (stored) await runStore!.runs.put(stored).catch(() => undefined);
    try {
      await this.#ctx.store.recordRun(record);
      if (stored) await runStore!.runs.put({ ...stored, remembered: true }).catch(() => undefined); // as above
    } catch (err) {
      this.#ctx.logger.error('recording the run in execution memory failed', {
        runId: run.id,
        error: (err as Error).message,
      });
    }
  }

  /** The run's stored record once it ended, with the execution-memory record it is owed. */
  #storedEnd(run: RunState, memory: RunRecord): StoredRun | undefined {
    const last = run.log.snapshot(run.log.lastSeq - 1)[0];
    if (last?.type !== 'run.finished') return undefined;
    const { type: _type, runId: _runId, seq: _seq, at: _at, ...ending } = last;
    return {
      id: run.id,
      callerId: run.callerId,
      threadId: run.threadId,
      status: last.status,
      request: run.request,
      createdAt: run.startedAt,
      updatedAt: Date.parse(last.at),
      ending,
      memory,
      remembered: false,
    };
  }

  /** After kill -9: finished runs whose execution-memory record may not have reached the knowledge store. */
  async #rememberMissed(runs: StoredRun[]): Promise<void> {
    const runStore = this.#ctx.runStore!;
    for (const r of runs) {
      if (r.remembered !== false || !r.memory) continue;
      try {
        if (!(await this.#ctx.store.getRun(r.id))) await this.#ctx.store.recordRun(r.memory as RunRecord);
        await runStore.runs.put({ ...r, remembered: true });
      } catch (err) {
        this.#ctx.logger.error('recording a run in execution memory after a restart failed', {
          runId: r.id,
          error: String(err),
        });
      }
    }
  }

  #cancelApprovals(runId: string): void {
    try {
      this.#ctx.approvals.cancelRun(runId);
    } catch (err) {
      this.#ctx.logger.warn('cancelling pending approvals failed', { runId, error: (err as Error).message });
    }
  }

  #retain(entry: Entry): void {
    const { runRetentionMs, runRetentionMax } = this.#ctx.config.engine;
    entry.run = undefined;
    entry.expiresAt = this.#ctx.now() + runRetentionMs;
    this.#finished.set(entry.handle.id, entry);
    // The count cap bounds retention's memory under load (a finished run keeps its whole event log).
    while (this.#finished.size > runRetentionMax) this.#drop(this.#finished.keys().next().value as string);
    this.#sweepLater();
  }

  /** Starts the sweep of expired finished runs, unless it runs already or nothing is retained. */
  #sweepLater(): void {
    const { runRetentionMs } = this.#ctx.config.engine;
    if (this.#sweep || this.#finished.size === 0) return;
    const every = Math.max(10, Math.min(runRetentionMs, 1000));
    this.#sweep = setInterval(() => this.#sweepExpired(), every);
    this.#sweep.unref?.();
  }

  #drop(id: string): void {
    this.#finished.delete(id);
    this.#runs.delete(id);
    this.#ctx.runStore?.forget(id).catch((err: unknown) => {
      this.#ctx.logger.error('run store: forgetting a run failed', { runId: id, error: String(err) });
    });
  }

  /** A run stopped at shutdown while it waited on a human: nothing is emitted or recorded; the store keeps it unfinished. */
  #suspended(run: RunState): RunResult {
    run.log.end();
    const error = (run.abort.signal.reason as Error).message;
    const usage = { ...run.meter.totals };
    return { runId: run.id, threadId: run.threadId, status: 'cancelled', error, usage, durationMs: 0 };
  }

  /**
   * At start, with a run store: what the last process left. Finished runs within retention become
   * replayable again (their events read from the store); the rest are forgotten. A run that was in
   * progress resumes from its checkpoint (its pending approvals waiting again under their ids), or ends
   * failed saying a restart interrupted it. Call once, before serving.
   */
  async recover(): Promise<{ resumed: number; failed: number; retained: number }> {
    const store = this.#ctx.runStore;
    if (!store) return { resumed: 0, failed: 0, retained: 0 };
    const { runRetentionMs, runRetentionMax } = this.#ctx.config.engine;
    const now = this.#ctx.now();
    const finished = await store.runs.listFinished();
    const keep = finished.filter((r) => r.updatedAt + runRetentionMs > now).slice(-runRetentionMax);
    const kept = new Set(keep.map((r) => r.id));
    for (const r of finished) if (!kept.has(r.id)) await store.forget(r.id);
    for (const r of keep) {
      if (this.#runs.has(r.id)) continue;
      const entry: Entry = { handle: storedRunHandle(r, store), expiresAt: r.updatedAt + runRetentionMs };
      this.#runs.set(r.id, entry);
      this.#finished.set(r.id, entry);
    }
    if (this.#finished.size) this.#sweepLater();
    await this.#rememberMissed(keep);

    if (this.#replicas) {
      // Other replicas may be executing the unfinished runs: only those whose lease expired are taken over.
      const before = this.#runs.size;
      await this.#replicas.start();
      return { resumed: this.#runs.size - before, failed: 0, retained: keep.length };
    }
    let resumed = 0;
    let failed = 0;
    const pending = await store.approvals.listPending();
    for (const r of await store.runs.listUnfinished()) {
      if (this.#runs.has(r.id)) continue;
      if (
        await this.#resumeStored(
          r,
          pending.filter((a) => a.runId === r.id),
        )
      )
        resumed++;
      else failed++;
    }
    return { resumed, failed, retained: keep.length };
  }

  /**
   * Resumes a run the store has unfinished (after a restart, or taken over from a dead replica): from
   * its checkpoint, its pending approvals waiting again under their ids and those answered meanwhile
   * applied; or, when it cannot resume (or a cancel came for it), it ends with the reason. True when resumed.
   */
  async #resumeStored(r: StoredRun, waiting: StoredApproval[], cancelled = false): Promise<boolean> {
    const store = this.#ctx.runStore!;
    const events = (await store.events.read(r.id)) as unknown as GraphEvent[];
    const resumption = cancelled
      ? { resume: false as const, reason: 'cancelled while no replica held the run' }
      : resumptionOf(events, await store.checkpoints.load(r.id));
    const closeInterrupted = (run: RunState) => {
      for (const call of unfinishedToolCalls(events))
        emit(run, {
          type: 'tool.finished',
          stepId: call.stepId,
          toolCallId: call.toolCallId,
          tool: call.tool,
          status: 'error',
          error: INTERRUPTED,
          durationMs: 0,
        });
    };
    if (resumption.resume) {
      const decided = await this.#answeredNotActed(r.id, events);
      const requests = [...waiting.map((a) => a.request), ...Object.values(decided).map((d) => d.request)];
      this.#ctx.approvals.restore?.(
        requests as ApprovalRequest[],
        Object.fromEntries(Object.entries(decided).map(([id, d]) => [id, d.outcome])),
      );
      this.#launch(r, events, (run) => {
        closeInterrupted(run);
        run.resumePlan = resumption.plan;
        run.planRound = resumption.round;
        run.kept = resumption.kept;
      });
    } else {
      for (const a of waiting)
        await store.approvals.decide(a.id, { resolvedBy: 'cancelled', reason: resumption.reason });
      this.#launch(r, events, (run) => {
        closeInterrupted(run);
        run.outcome = cancelled
          ? { status: 'cancelled', error: resumption.reason }
          : { status: 'failed', error: resumption.reason };
      });
    }
    this.#ctx.logger.info(
      resumption.resume ? 'resumed a run after a restart' : 'a run interrupted by a restart ended',
      {
        runId: r.id,
        ...(resumption.resume ? { approvals: waiting.length } : { reason: resumption.reason }),
      },
    );
    return resumption.resume;
  }

  /** Approvals answered (on another replica, or just before a crash) whose answer the run has not yet acted on. */
  async #answeredNotActed(
    runId: string,
    events: GraphEvent[],
  ): Promise<Record<string, { request: unknown; outcome: ApprovalOutcome }>> {
    const acted = new Set(
      events
        .filter((e): e is GraphEventOf<'approval.resolved'> => e.type === 'approval.resolved')
        .map((e) => e.outcome.requestId),
    );
    const answered = (await this.#ctx.runStore!.approvals.listForRun(runId)).filter(
      (a) =>
        a.status === 'decided' &&
        !acted.has(a.id) &&
        (a.outcome as ApprovalOutcome | undefined)?.resolvedBy === 'human',
    );
    return Object.fromEntries(
      answered.map((a) => [a.id, { request: a.request, outcome: a.outcome as ApprovalOutcome }]),
    );
  }

  /** A run another replica finished, retained here for replay like one finished here. */
  #retainStored(r: StoredRun): void {
    if (this.#runs.has(r.id)) return;
    const entry: Entry = {
      handle: storedRunHandle(r, this.#ctx.runStore!),
      expiresAt: r.updatedAt + this.#ctx.config.engine.runRetentionMs,
    };
    this.#runs.set(r.id, entry);
    this.#finished.set(r.id, entry);
    this.#sweepLater();
  }

  #sweepExpired(): void {
    const now = this.#ctx.now();
    // Finish order is expiry order (one retention for all), so stop at the first one still fresh.
    for (const [id, e] of this.#finished) {
      if ((e.expiresAt ?? 0) > now) break;
      this.#drop(id);
    }
    if (this.#finished.size === 0 && this.#sweep) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
  }

  #failedHandle(log: RunEventLog, threadId: string, request: RunRequest, error: string): RunHandle {
    const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 };
    log.emit({
      type: 'run.started',
      threadId,
      query: String(request.query ?? ''),
      mode: request.mode ?? 'auto',
      protocol: request.protocol,
    });
    log.emit({ type: 'run.finished', status: 'failed', error, usage, durationMs: 0 });
    const result: RunResult = { runId: log.runId, threadId, status: 'failed', error, usage, durationMs: 0 };
    const callerId = ownerIdOf(request);
    return {
      id: log.runId,
      threadId,
      callerId,
      admission: Promise.resolve(ADMITTED),
      result: Promise.resolve(result),
      events: (afterSeq) => log.events(afterSeq),
      lastSeq: () => log.lastSeq,
    };
  }
}

function invalidRequest(request: RunRequest): string | undefined {
  if (typeof request.query !== 'string' || (request.query.trim() === '' && !request.parts?.length))
    return 'the query is empty';
  if (
    request.threadId !== undefined &&
    (typeof request.threadId !== 'string' || request.threadId.length > MAX_THREAD_ID_CHARS)
  )
    return `the thread id must be a string of at most ${MAX_THREAD_ID_CHARS} characters`;
  if (request.mode !== undefined && !RUN_MODES.includes(request.mode)) {
    return `unknown mode "${String(request.mode)}" (expected ${RUN_MODES.join(', ')})`;
  }
  return undefined;
}

function outcomeOf(run: RunState, err: unknown): RunOutcome {
  const reason = run.abort.signal.aborted ? run.abort.signal.reason : err;
  if (reason instanceof BudgetExceededError) {
    return {
      status: 'blocked',
      error: reason.message,
      ...(reason.retryAfterMs !== undefined ? { retryAfterMs: reason.retryAfterMs } : {}),
    };
  }
  // A deadlocked team stops the run through its signal, but nobody cancelled it: it failed.
  if (reason instanceof DeadlockError) return { status: 'failed', error: reason.message };
  if (run.abort.signal.aborted)
    return { status: 'cancelled', error: reason instanceof Error ? reason.message : 'cancelled' };
  return { status: 'failed', error: err instanceof Error ? err.message : String(err) };
}
