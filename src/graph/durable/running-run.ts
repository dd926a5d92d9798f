/**
 * A run still in progress (or waiting on a human) as the HTTP API shows it. Execution memory records a
 * run only once it finishes, so `GET /api/runs/:id` answered 404 for a run a client had just started;
 * the run store has it from its first event: its record, the plan and finished steps of its
 * checkpoint, and the approvals it waits on. A finished run the local execution memory lacks (it ran
 * on another replica, each with its own embedded graph) is answered from the record stored with it.
 */
import type { Checkpoint, RunStore, StoredApproval, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { ForkOrigin } from '../run/events.ts';
import type { RunRequest } from '../run/request.ts';
import { stepRecordsOf } from '../run/record.ts';
import type { StepOutcome } from '../planning/scheduler.ts';

export interface RunningRunSummary {
  id: string;
  query: string;
  status: 'running';
  startedAt: string;
  durationMs: number;
  score: null;
  threadId: string;
  protocol: string;
  callerId: string;
  forkedFrom?: ForkOrigin;
}

/** A fork's origin as its stored request holds it (graph/timetravel/fork-request.ts), or undefined. */
const forkOriginOf = (run: StoredRun): ForkOrigin | undefined => (run.request as Partial<RunRequest>).forkedFrom;

export function runningRunSummary(run: StoredRun, now: number): RunningRunSummary {
  const forkedFrom = forkOriginOf(run);
  return {
    id: run.id,
    query: (run.request as Partial<RunRequest>).query ?? '',
    status: 'running',
    startedAt: new Date(run.createdAt).toISOString(),
    durationMs: Math.max(0, now - run.createdAt),
    score: null,
    threadId: run.threadId,
    protocol: (run.request as Partial<RunRequest>).protocol ?? 'unknown',
    callerId: run.callerId,
    ...(forkedFrom ? { forkedFrom } : {}),
  };
}

export function runningRunDetail(
  run: StoredRun,
  checkpoint: Checkpoint | undefined,
  approvals: readonly StoredApproval[],
  now: number,
) {
  const plan = checkpoint?.plan as GraphPlan | undefined;
  const results = new Map<string, StepOutcome>(
    (checkpoint?.steps ?? []).map((s) => [
      s.stepId,
      { stepId: s.stepId, ...(s.outcome as Omit<StepOutcome, 'stepId'>) },
    ]),
  );
  return {
    ...runningRunSummary(run, now),
    ...(plan ? { plan } : {}),
    steps: plan ? stepRecordsOf(plan, results, 'pending') : [],
    approvals: approvals.map(approvalView),
  };
}

const approvalView = (a: StoredApproval) => ({
  id: a.id,
  status: a.status,
  request: a.request,
  ...(a.outcome ? { outcome: a.outcome } : {}),
});

const MAX_LOOKUP_ID_CHARS = 512;

/** The HTTP API's view of the runs still going (knowledge/routes.ts RunningRuns). */
export function runningRunsOf(store: Pick<RunStore, 'runs' | 'checkpoints' | 'approvals'>) {
  return {
    async list(callerId: string | undefined, threadId: string | undefined, protocol?: string) {
      const now = Date.now();
      return (await store.runs.listUnfinished())
        .filter((r) => r.status === 'running')
        .filter((r) => (callerId === undefined || r.callerId === callerId) && (!threadId || r.threadId === threadId))
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((r) => runningRunSummary(r, now))
        .filter((r) => !protocol || r.protocol === protocol);
    },
    async get(id: string) {
      // No run id is this long (engine and protocol ids are UUIDs or short client ids), and a key
      // beyond LMDB's limit would be an error, not "not found".
      if (id.length > MAX_LOOKUP_ID_CHARS) return undefined;
      const run = await store.runs.get(id);
      if (!run) return undefined;
      // Finished: its execution-memory record as stored with it. Execution memory answers first, but with
      // an embedded graph per replica only the replica that ran it has it; the shared store has it for all.
      if (run.status !== 'running') {
        if (!run.memory) return undefined;
        const approvals = await store.approvals.listForRun(id);
        // A fork's record names its parent; one stored before records did is completed from its request.
        const forkedFrom = forkOriginOf(run);
        return {
          callerId: run.callerId,
          detail: {
            ...(forkedFrom ? { forkedFrom } : {}),
            ...(run.memory as object),
            approvals: approvals.map(approvalView),
          },
        };
      }
      const [checkpoint, approvals] = await Promise.all([store.checkpoints.load(id), store.approvals.listForRun(id)]);
      return { callerId: run.callerId, detail: runningRunDetail(run, checkpoint, approvals, Date.now()) };
    },
  };
}
