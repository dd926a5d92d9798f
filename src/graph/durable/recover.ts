/**
 * Restart recovery (docs/durability.md): what the last process left in the run store. Finished runs
 * within retention become replayable again (served from the store); the rest are forgotten, and those
 * whose execution-memory record a kill -9 may have lost are recorded now. A run that was in progress
 * resumes from its checkpoint (its pending approvals waiting again under their ids, those answered
 * meanwhile applied), or ends failed saying a restart interrupted it. With replicas only the runs whose
 * lease expired are taken over (replicas/replica-runs.ts).
 */
import type { ApprovalOutcome, ApprovalRequest } from '../../hitl/types.ts';
import type { RunRecord } from '../../knowledge/store.ts';
import type { StoredApproval, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent, GraphEventOf } from '../run/events.ts';
import type { FinishedRuns } from '../retention/finished-runs.ts';
import type { ReplicaRuns } from '../replicas/replica-runs.ts';
import { emit, type EngineContext, type RunOutcome, type RunState } from '../run/state.ts';
import { INTERRUPTED, resumptionOf, unfinishedToolCalls } from './resume-plan.ts';

/** What recovery asks of the engine. */
export interface RecoveringEngine {
  ctx: EngineContext;
  finished: FinishedRuns;
  replicas?: ReplicaRuns;
  /** True when the run is running or retained here already. */
  knows(runId: string): boolean;
  /** How many runs are running here. */
  running(): number;
  /** Starts the stored run again, its log continuing after `events`; `prepare` sets up the fresh RunState. */
  /** `prepare` may return the outcome the run ends with at once (it cannot resume): the engine sets it. */
  launch(record: StoredRun, events: GraphEvent[], prepare: (run: RunState) => RunOutcome | void): void;
}

export interface Recovered {
  resumed: number;
  failed: number;
  retained: number;
}

/** Call once, before serving. */
export async function recoverRuns(engine: RecoveringEngine): Promise<Recovered> {
  const { ctx, finished } = engine;
  const store = ctx.runStore;
  if (!store) return { resumed: 0, failed: 0, retained: 0 };
  const { runRetentionMs, runRetentionMax } = ctx.config.engine;
  const now = ctx.now();
  const stored = await store.runs.listFinished();
  const keep = stored.filter((r) => r.updatedAt + runRetentionMs > now).slice(-runRetentionMax);
  const kept = new Set(keep.map((r) => r.id));
  for (const r of stored) if (!kept.has(r.id)) await store.forget(r.id);
  for (const r of keep) if (!engine.knows(r.id)) finished.addStored(r, r.updatedAt);
  await rememberMissed(ctx, keep);

  if (engine.replicas) {
    // Other replicas may be executing the unfinished runs: only those whose lease expired are taken over.
    const before = engine.running();
    await engine.replicas.start();
    return { resumed: engine.running() - before, failed: 0, retained: keep.length };
  }
  let resumed = 0;
  let failed = 0;
  const pending = await store.approvals.listPending();
  for (const r of await store.runs.listUnfinished()) {
    if (engine.knows(r.id)) continue;
    const waiting = pending.filter((a) => a.runId === r.id);
    if (await resumeStoredRun(engine, r, waiting)) resumed++;
    else failed++;
  }
  return { resumed, failed, retained: keep.length };
}

/**
 * Resumes a run the store has unfinished (after a restart, or taken over from a dead replica): from
 * its checkpoint, its pending approvals waiting again under their ids and those answered meanwhile
 * applied; or, when it cannot resume (or a cancel came for it), it ends with the reason. True when resumed.
 */
export async function resumeStoredRun(
  engine: RecoveringEngine,
  r: StoredRun,
  waiting: StoredApproval[],
  cancelled = false,
): Promise<boolean> {
  const { ctx } = engine;
  const store = ctx.runStore!;
  const events = (await store.events.read(r.id)) as unknown as GraphEvent[];
  const resumption = cancelled
    ? { resume: false as const, reason: 'cancelled while no replica held the run' }
    : resumptionOf(events, await store.checkpoints.load(r.id));
  // The tool calls the stop cut short are closed first: the step calls anew (resume-plan.ts).
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
    const decided = await answeredNotActed(ctx, r.id, events);
    const requests = [...waiting.map((a) => a.request), ...Object.values(decided).map((d) => d.request)];
    ctx.approvals.restore?.(
      requests as ApprovalRequest[],
      Object.fromEntries(Object.entries(decided).map(([id, d]) => [id, d.outcome])),
    );
    engine.launch(r, events, (run) => {
      closeInterrupted(run);
      run.resumePlan = resumption.plan;
      run.planRound = resumption.round;
      run.kept = resumption.kept;
    });
  } else {
    for (const a of waiting) await store.approvals.decide(a.id, { resolvedBy: 'cancelled', reason: resumption.reason });
    engine.launch(r, events, (run) => {
      closeInterrupted(run);
      return cancelled
        ? { status: 'cancelled', error: resumption.reason }
        : { status: 'failed', error: resumption.reason };
    });
  }
  ctx.logger.info(resumption.resume ? 'resumed a run after a restart' : 'a run interrupted by a restart ended', {
    runId: r.id,
    ...(resumption.resume ? { approvals: waiting.length } : { reason: resumption.reason }),
  });
  return resumption.resume;
}

/** Approvals answered (on another replica, or just before a crash) whose answer the run has not yet acted on. */
async function answeredNotActed(
  ctx: EngineContext,
  runId: string,
  events: GraphEvent[],
): Promise<Record<string, { request: unknown; outcome: ApprovalOutcome }>> {
  const acted = new Set(
    events
      .filter((e): e is GraphEventOf<'approval.resolved'> => e.type === 'approval.resolved')
      .map((e) => e.outcome.requestId),
  );
  const answered = (await ctx.runStore!.approvals.listForRun(runId)).filter(
    (a) =>
      a.status === 'decided' && !acted.has(a.id) && (a.outcome as ApprovalOutcome | undefined)?.resolvedBy === 'human',
  );
  return Object.fromEntries(answered.map((a) => [a.id, { request: a.request, outcome: a.outcome as ApprovalOutcome }]));
}

/**
 * After kill -9: finished runs whose execution-memory record may not have reached the knowledge store.
 * Recording is idempotent (a run id already there is left as it is); they are noted remembered in one write.
 */
async function rememberMissed(ctx: EngineContext, runs: StoredRun[]): Promise<void> {
  const runStore = ctx.runStore!;
  const remembered: string[] = [];
  for (const r of runs) {
    if (r.remembered !== false || !r.memory) continue;
    try {
      if (!(await ctx.store.getRun(r.id))) await ctx.store.recordRun(r.memory as RunRecord);
      remembered.push(r.id);
    } catch (err) {
      ctx.logger.error('recording a run in execution memory after a restart failed', {
        runId: r.id,
        error: String(err),
      });
    }
  }
  await runStore.runs.markRemembered(remembered);
}
