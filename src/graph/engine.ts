/**
 * Engine: runs many isolated runs concurrently. Each run is a RunState moved through the L0 nodes
 * by one loop (with a watchdog on transitions), and an event log any number of consumers can read.
 * Finished runs stay replayable for config.engine.runRetentionMs, then are dropped; at most
 * config.engine.runRetentionMax of them are kept, the oldest finished dropped first.
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
import { silentLogger } from '../log.ts';
import { tracingOff, withSpan } from '../telemetry.ts';

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

  constructor(deps: EngineDeps) {
    this.#ctx = createEngineContext(deps);
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
    const log = new RunEventLog(id, { buffer: ctx.config.engine.eventBuffer, now: ctx.now });
    if (this.#runs.has(id)) {
      // Never disturb the run that owns the id: answer with a detached, already failed run.
      return this.#failedHandle(log, threadId, request, `run id "${id}" is already in use`);
    }

    const admission = admissionGate();
    const run = createRunState(
      {
        id,
        threadId,
        request,
        startedAt,
        log,
        admit: admission.settle,
        ...(options.tools ? { sessionTools: options.tools } : {}),
      },
      ctx,
    );
    const result = this.#execute(run);
    const handle: RunHandle = {
      id,
      threadId,
      callerId: run.callerId,
      admission: admission.promise,
      result,
      events: (afterSeq) => log.events(afterSeq),
    };
    const entry: Entry = { run, handle };
    this.#runs.set(id, entry);
    void result.then(() => {
      this.#retain(entry);
      this.#saveLedger();
    });
    return handle;
  }

  /**
   * A model call made outside any run (the OpenAI-compatible passthrough), admitted and charged
   * through the same caller rate limit, caller and thread budgets and price rules as a run's calls.
   */
  admitDirectCall(request: DirectCallRequest): DirectCall {
    return admitDirectCall(this.#ctx, request, () => this.#saveLedger());
  }

  /** Writes the ledger file (no-op in memory); writes are serialized, failures logged. */
  #saveLedger(): Promise<void> {
    const save = this.#ctx.saveLedger;
    return save ? save(this.#ctx.ledger.snapshot()) : Promise.resolve();
  }

  cancel(runId: string, reason?: string): boolean {
    const entry = this.#runs.get(runId);
    if (!entry?.run || entry.run.abort.signal.aborted) return false;
    entry.run.abort.abort(new RunCancelledError(reason ? `cancelled: ${reason}` : 'cancelled'));
    this.#cancelApprovals(runId);
    return true;
  }

  get(runId: string, caller?: Caller): RunHandle | undefined {
    const handle = this.#runs.get(runId)?.handle;
    return handle && canSee(caller, handle.callerId) ? handle : undefined;
  }

  /** Cancels every running run, waits for them to finish, and drops all retained runs. */
  async close(reason = 'engine shutting down'): Promise<void> {
    const running = [...this.#runs.values()].filter((e) => e.run);
    for (const e of running) this.cancel(e.handle.id, reason);
    await Promise.all(running.map((e) => e.handle.result));
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
    this.#runs.clear();
    this.#finished.clear();
    await this.#saveLedger();
  }

  async #execute(run: RunState): Promise<RunResult> {
    const ctx = this.#ctx;
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
      if (invalid) run.outcome = { status: 'failed', error: invalid };
      else
        await ctx.span(
          'run',
          { 'parley.run_id': run.id, 'parley.protocol': run.request.protocol, 'parley.mode': run.mode },
          () => this.#loop(run),
        );
    } catch (err) {
      run.outcome = outcomeOf(run, err);
    } finally {
      clearTimeout(wall);
    }
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
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
      usage,
      durationMs,
    };
    // The answer goes out first; execution memory is written after it (off the critical path),
    // and `result` settles only once the record is written (so awaiting it sees the store updated).
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
    try {
      await this.#ctx.store.recordRun(record);
    } catch (err) {
      this.#ctx.logger.error('recording the run in execution memory failed', {
        runId: run.id,
        error: (err as Error).message,
      });
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
    if (this.#sweep || this.#finished.size === 0) return;
    const every = Math.max(10, Math.min(runRetentionMs, 1000));
    this.#sweep = setInterval(() => this.#sweepExpired(), every);
    this.#sweep.unref?.();
  }

  #drop(id: string): void {
    this.#finished.delete(id);
    this.#runs.delete(id);
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
    };
  }
}

function invalidRequest(request: RunRequest): string | undefined {
  if (typeof request.query !== 'string' || (request.query.trim() === '' && !request.parts?.length))
    return 'the query is empty';
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
  if (run.abort.signal.aborted)
    return { status: 'cancelled', error: reason instanceof Error ? reason.message : 'cancelled' };
  return { status: 'failed', error: err instanceof Error ? err.message : String(err) };
}
