/**
 * Engine: runs many isolated runs concurrently. Each run is a RunState moved through the L0 nodes
 * by one loop (with a watchdog on transitions), and an event log any number of consumers can read.
 * This file is the run lifecycle: start, the loop, cancel, suspend, the end.
 *
 * graph/ in layers, top to bottom (a room imports only rooms below it: test/unit/boundaries.test.ts):
 *   engine.ts contract.ts > durable/ > replicas/ > retention/ > timetravel/ > nodes/ > specialists/
 *   > dynamic/ > learning/ > planning/ > prompting/ > threads/ > run/ > spending/
 * From the top: the engine and its door (contract.ts, for the adapters and src/eval/); what keeps a run
 * beyond this process (run store, replicas, retention, time travel); what a run does (L0 nodes, L1
 * specialists, teams, reuse, the plan and its scheduler, prompts, the conversation); what a run is
 * (run/: request, state, events, edges, log, outcome, the engine's ports) and what it spends.
 */
import type { GraphEvent, GraphEventOf } from './run/events.ts';
import { canSee, ownerIdOf, type Caller, type RunRequest } from './run/request.ts';
import type { CancelAnswer, RunEngine, RunHandle, RunOptions, RunResult } from './run/engine-port.ts';
import { ADMITTED, admissionGate } from './spending/admission.ts';
import type { EngineDeps } from './run/engine-deps.ts';
import { createEngineContext } from './run/engine-context.ts';
import { RunEventLog } from './run/event-log.ts';
import { newId } from './run/new-id.ts';
import { wallTimeLimit } from './spending/usage.ts';
import { admitDirectCall, type DirectCall, type DirectCallRequest } from './spending/direct-call.ts';
import { createRunState, emit, type EngineContext, type RunOutcome, type RunState } from './run/state.ts';
import { endedRunHandle, endingOf, invalidRequest, outcomeOf } from './run/outcome.ts';
import { StartAdmission, type RefusalReason } from './spending/refusals.ts';
import { walkNodes } from './nodes/walk.ts';
import { loadHistory, saveTurn } from './threads/thread-turns.ts';
import type { StoredRun } from '../store/runs/run-store.ts';
import { runPersister, type Made } from './durable/persist-events.ts';
import { MemoryWrites, recordEnd } from './durable/record-end.ts';
import { runRecordOf } from './run/record.ts';
import { recoverRuns, resumeStoredRun, type Recovered, type RecoveringEngine } from './durable/recover.ts';
import { FinishedRuns } from './retention/finished-runs.ts';
import { joinReplicas, type Replicas } from './replicas/join.ts';
import { followingMoves } from './replicas/moved-run.ts';
import { seedRun } from './timetravel/seed.ts';
import { runApprovals } from './run/approvals.ts';
import type { ApprovalDecision, ApprovalRequest, ResolveAnswer } from '../hitl/types.ts';
import { endSuspended, RunSuspendedError } from './run/suspended.ts';
import { CANCEL_CONFIRM_MS, cancelAndSettle, RUN_FINISHED, RunCancelledError } from './run/cancel.ts';

/** A run in progress: its state, the handle its clients hold, and when it ends here. */
interface Running {
  run: RunState;
  handle: RunHandle;
  /** Its result here; the handle's may be the one it ends with on another replica (replicas/moved-run.ts). */
  endsHere: Promise<RunResult>;
}

export class Engine implements RunEngine {
  readonly #ctx: EngineContext;
  readonly #running = new Map<string, Running>();
  readonly #finished: FinishedRuns;
  /** With a shared cluster and run store: runs leased, followed and taken over across replicas. */
  readonly #replicas?: Replicas;
  readonly #takeoverListeners = new Set<(runId: string) => void>();
  /** Execution-memory records written after their runs' results (durable/record-end.ts). */
  readonly #memoryWrites = new MemoryWrites();
  readonly #admission: StartAdmission;

  constructor(deps: EngineDeps) {
    const ctx = (this.#ctx = createEngineContext(deps));
    this.#admission = new StartAdmission(ctx.ledger, ctx.logger);
    const { runRetentionMs, runRetentionMax, runRetentionBytes } = ctx.config.engine;
    this.#finished = new FinishedRuns(
      { retentionMs: runRetentionMs, max: runRetentionMax, budgetBytes: runRetentionBytes },
      { now: ctx.now, logger: ctx.logger, approvals: ctx.approvals, ...(ctx.runStore ? { store: ctx.runStore } : {}) },
    );
    this.#replicas = joinReplicas(ctx, {
      isLocal: (id) => this.#running.has(id) || this.#finished.has(id),
      localRunning: () => [...this.#running.keys()],
      resume: async (run, pending, cancelled) => {
        await resumeStoredRun(this.#recovering(), run, pending, cancelled);
        for (const listener of this.#takeoverListeners) listener(run.id);
      },
      cancelLocal: (id, reason) => (this.#running.has(id) ? this.cancel(id, reason) : false),
      suspendLocal: (id, reason) => this.#stopAsCheckpointed(id, reason),
      retainFinished: (run) => {
        if (!this.#running.has(run.id)) this.#finished.addStored(run, run.updatedAt);
      },
    });
  }

  /** Run requests refused before they started (rate limit, window budgets), by reason. */
  get refusedStarts(): Readonly<Record<RefusalReason, number>> {
    return this.#admission.refused;
  }

  /** Runs still in progress. */
  get activeRuns(): number {
    return this.#running.size;
  }

  /** Runs held in memory (in progress plus finished ones still retained for replay). */
  get retainedRuns(): number {
    return this.#running.size + this.#finished.size;
  }

  start(request: RunRequest, options: RunOptions = {}): RunHandle {
    const ctx = this.#ctx;
    const id = request.runId ?? newId();
    const threadId = request.threadId ?? id;
    const startedAt = ctx.now();
    if (this.#running.has(id) || this.#finished.has(id)) {
      // Never disturb the run that owns the id: answer with a detached, already failed run.
      const log = new RunEventLog(id, { buffer: ctx.config.engine.eventBuffer, now: ctx.now });
      return endedRunHandle(
        log,
        threadId,
        request,
        { status: 'failed', error: `run id "${id}" is already in use` },
        ctx.approvals,
      );
    }
    // Admitted before it exists: a refusal is counted, not stored (an invalid request fails as a run instead).
    const refused = invalidRequest(request)
      ? undefined
      : this.#admission.admit(ownerIdOf(request), request.threadId, request.protocol);
    if (refused) {
      const log = new RunEventLog(id, { buffer: ctx.config.engine.eventBuffer, now: ctx.now });
      const { error, retryAfterMs } = refused;
      return endedRunHandle(log, threadId, request, { status: 'blocked', error, retryAfterMs }, ctx.approvals);
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
    resume?: (run: RunState) => RunOutcome | void,
    options: RunOptions = {},
  ): RunHandle {
    const ctx = this.#ctx;
    const { id, threadId } = record;
    const request = record.request as RunRequest;
    // The persister reads the run's plan, and its memory record at the end; the run is made after its log.
    const made: Made = {};
    const store = ctx.runStore;
    const persisted = runPersister(store, record, restored.length === 0, made, ctx.logger);
    // Replicas: followers on other processes are told when the stored log grows.
    const persist = persisted && this.#replicas ? this.#replicas.runs.signalEvents(id, persisted) : persisted;
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
    // A run that cannot resume after a restart comes with its outcome: it only ends (#execute).
    const endsAs = resume?.(run);
    if (endsAs) run.outcome = endsAs;
    if (options.resumeFrom) seedRun(run, options.resumeFrom, store, ctx.logger);
    const result = this.#execute(run, made, restored.length > 0);
    const here: RunHandle = {
      id,
      threadId,
      callerId: run.callerId,
      admission: admission.promise,
      result,
      events: (afterSeq) => log.events(afterSeq),
      lastSeq: () => log.lastSeq,
      ...runApprovals(ctx.approvals, id, run.callerId),
    };
    const replicas = this.#replicas?.runs;
    const handle = replicas ? followingMoves(here, () => replicas.remote(id)) : here;
    this.#running.set(id, { run, handle, endsHere: result });
    replicas?.started({ id, callerId: run.callerId, threadId }, restored.length > 0);
    void result.then(() => {
      replicas?.ended(id, !(run.abort.signal.reason instanceof RunSuspendedError));
      // In the same tick: get() finds the run throughout, running then finished (or followed where it moved).
      this.#running.delete(id);
      if (!replicas?.remote(id)) this.#finished.add(handle, log);
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
    const run = this.#running.get(runId)?.run;
    if (!run && !this.#finished.has(runId) && this.#replicas?.runs.remote(runId)) {
      // Executing on another replica: the cancel goes there (docs/deployment.md).
      this.#replicas.runs.cancelRemote(runId, reason).catch((err: unknown) => {
        this.#ctx.logger.warn('replicas: sending a cancel failed', { runId, error: String(err) });
      });
      return true;
    }
    if (!run || run.abort.signal.aborted) return false;
    run.abort.abort(new RunCancelledError(reason ? `cancelled: ${reason}` : 'cancelled'));
    this.#cancelApprovals(runId);
    return true;
  }

  async cancelAndWait(handle: RunHandle, reason?: string): Promise<CancelAnswer> {
    const id = handle.id;
    const remote = !this.#running.has(id) && !this.#finished.has(id) ? this.#replicas?.runs.remote(id) : undefined;
    if (!remote) return cancelAndSettle(handle, () => this.cancel(id, reason), CANCEL_CONFIRM_MS);
    // Held by another replica: the cancel is sent before anything is answered, so a send that cannot
    // reach it (Redis down) is the caller's UnavailableError (503 + Retry-After), never a 202 that does nothing.
    await this.#replicas!.runs.cancelRemote(id, reason);
    return cancelAndSettle(handle, () => true, CANCEL_CONFIRM_MS);
  }

  async find(runId: string, caller?: Caller): Promise<RunHandle | undefined> {
    const held = this.get(runId, caller);
    return held ?? ((await this.#finished.fromStore(runId)) ? this.get(runId, caller) : undefined);
  }

  get(runId: string, caller?: Caller): RunHandle | undefined {
    const handle = this.#running.get(runId)?.handle ?? this.#finished.get(runId) ?? this.#replicas?.runs.remote(runId);
    return handle && canSee(caller, handle.callerId) ? handle : undefined;
  }

  approval(requestId: string, caller: Caller): ApprovalRequest | undefined {
    return this.#ctx.approvals.get(requestId, caller);
  }

  resolveApproval(
    requestId: string,
    decision: ApprovalDecision,
    actor: string,
    caller: Caller,
  ): Promise<ResolveAnswer> {
    return this.#ctx.approvals.resolve(requestId, decision, actor, caller);
  }

  executesHere(runId: string): boolean {
    // Followed from another replica: a run started or taken over here is never, unless it moved away.
    return !this.#replicas?.runs.remote(runId);
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
  async suspendRunsAwaitingApproval(): Promise<void> {
    const { runStore, approvals } = this.#ctx;
    if (!runStore || !approvals.suspendRun) return;
    const waiting = [...this.#running.values()].filter((e) => approvals.listPending(e.handle.id).length);
    for (const e of waiting)
      this.#stopAsCheckpointed(e.handle.id, 'the run waits on a human: suspended until the next start');
    await Promise.all(waiting.map((e) => e.endsHere));
  }

  /** Stops a run as it is, checkpointed: the next start (or another replica) goes on with it. */
  #stopAsCheckpointed(runId: string, reason: string): void {
    const run = this.#running.get(runId)?.run;
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
    await this.suspendRunsAwaitingApproval();
    if (this.#replicas) {
      // One replica of several stopping (a rolling deploy): its runs go on elsewhere from their checkpoints.
      const running = [...this.#running.values()];
      for (const e of running)
        this.#stopAsCheckpointed(e.handle.id, 'this replica is stopping: another one goes on with the run');
      await Promise.all(running.map((e) => e.endsHere));
      this.#replicas.runs.close();
      this.#replicas.unshareLedger();
    }
    const running = [...this.#running.values()];
    for (const e of running) this.cancel(e.handle.id, reason);
    await Promise.all(running.map((e) => e.endsHere));
    this.#running.clear();
    await this.#memoryWrites.recorded(this.#ctx.store);
    this.#finished.close();
    await this.#saveLedger();
  }

  /**
   * Settles once the run's execution-memory record (without an id: every record of a run that has ended
   * here) is in the knowledge store, or its write failed (logged; the next start writes it again). A run's
   * `result` settles before that; the knowledge store's reads see the record either way.
   */
  recorded(runId?: string): Promise<void> {
    return this.#memoryWrites.recorded(this.#ctx.store, runId);
  }

  async #execute(run: RunState, made: Made, resumed = false): Promise<RunResult> {
    const ctx = this.#ctx;
    if (!resumed)
      emit(run, {
        type: 'run.started',
        threadId: run.threadId,
        query: run.request.query,
        mode: run.mode,
        protocol: run.request.protocol,
        ...(run.request.forkedFrom ? { forkedFrom: run.request.forkedFrom } : {}),
        ...(run.request.replayOf ? { replayOf: run.request.replayOf } : {}),
      });
    const clearWallTime = wallTimeLimit(run.abort, run.meter.budget.wallTimeMs);
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
            const decided = await walkNodes(run, ctx);
            if (decided) run.outcome = decided;
          },
        );
    } catch (err) {
      run.outcome = outcomeOf(run, err);
    } finally {
      clearWallTime();
    }
    if (run.abort.signal.reason instanceof RunSuspendedError) return endSuspended(run);
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
    const ending = endingOf(run, outcome, durationMs);
    // The answer goes out first; execution memory is written after the result (durable/record-end.ts): the
    // run store holds the record with the run's end until the knowledge store has it.
    // The turn is in its thread before run.finished goes out: a client that saw the end can ask again at once.
    made.memory = runRecordOf(run, outcome, durationMs);
    if (!invalidRequest(run.request)) {
      // With a run store the turn is written with run.finished's batch (durable/persist-events.ts).
      if (ctx.runStore) made.turn = () => saveTurn(run, ctx, ending);
      else await saveTurn(run, ctx, ending);
    }
    emit(run, { type: 'run.finished', ...ending });
    made.turn = undefined;
    await recordEnd(ctx, run, made.memory, this.#memoryWrites);
    made.memory = undefined;
    return { runId: run.id, threadId: run.threadId, ...ending };
  }

  /**
   * At start, with a run store: what the last process left (durable/recover.ts). Finished runs within
   * retention become replayable again; a run in progress resumes from its checkpoint or ends failed.
   * Call once, before serving.
   */
  recover(): Promise<Recovered> {
    return recoverRuns(this.#recovering());
  }

  #recovering(): RecoveringEngine {
    return {
      ctx: this.#ctx,
      finished: this.#finished,
      ...(this.#replicas ? { replicas: this.#replicas.runs } : {}),
      knows: (id) => this.#running.has(id) || this.#finished.has(id),
      running: () => this.#running.size,
      launch: (record, events, prepare) => void this.#launch(record, events, prepare),
    };
  }

  #cancelApprovals(runId: string): void {
    try {
      this.#ctx.approvals.cancelRun(runId);
    } catch (err) {
      this.#ctx.logger.warn('cancelling pending approvals failed', { runId, error: (err as Error).message });
    }
  }
}
