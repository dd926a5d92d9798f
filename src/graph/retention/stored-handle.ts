/**
 * A finished run served from the run store: its handle replays the stored event log, page by page,
 * and its result is the stored ending, read when asked. It holds only the run's ids, so a finished
 * run costs the heap a few hundred bytes however long its log (issue 32: finished runs live in the
 * store, not in memory). Used for runs finished here, before a restart, or on another replica.
 */
import type { ApprovalDecision, ApprovalPort, ApprovalRequest, ResolveAnswer } from '../../hitl/types.ts';
import type { RunStore } from '../../store/runs/run-store.ts';
import { ADMITTED, type Admission } from '../spending/admission.ts';
import type { RunHandle, RunResult } from '../run/engine-port.ts';
import type { GraphEvent, RunEnding } from '../run/events.ts';
import { pendingRunApprovals, resolveRunApproval } from '../run/approvals.ts';

const PAGE = 500;

export interface StoredRunIds {
  id: string;
  threadId: string;
  callerId: string;
}

/** Where every stored handle reads from: one object, shared by all of them. */
export interface StoredRunSource {
  store: RunStore;
  approvals: ApprovalPort;
}

export function storedRunHandle(ids: StoredRunIds, source: StoredRunSource): RunHandle {
  return new StoredRunHandle(ids.id, ids.threadId, ids.callerId, source);
}

class StoredRunHandle implements RunHandle {
  // Methods, not closures from runApprovals: up to PARLEY_RUN_RETENTION_MAX of these live at once, and
  // two closures with their context were most of what one cost (bench/heap-diff.ts, docs/performance.md).
  // For the same reason `fromStore` is a getter and the store and approvals one shared field: a field
  // fewer each is 8 bytes a retained run.
  constructor(
    readonly id: string,
    readonly threadId: string,
    readonly callerId: string,
    private readonly source: StoredRunSource,
  ) {}

  get fromStore(): true {
    return true;
  }

  private get store(): RunStore {
    return this.source.store;
  }

  private get approvals(): ApprovalPort {
    return this.source.approvals;
  }

  pendingApprovals(): ApprovalRequest[] {
    return pendingRunApprovals(this.approvals, this.id, this.callerId);
  }

  /** A late answer to one of its approvals reads already_resolved, as through POST /api/approve. */
  resolve(requestId: string, decision: ApprovalDecision, actor: string): Promise<ResolveAnswer> {
    return resolveRunApproval(this.approvals, this.id, this.callerId, requestId, decision, actor);
  }

  get admission(): Promise<Admission> {
    return Promise.resolve(ADMITTED);
  }

  /** The stored ending; a run the store no longer has (forgotten meanwhile) reads as failed, never a rejection. */
  get result(): Promise<RunResult> {
    const gone = (error: string): RunResult => ({
      runId: this.id,
      threadId: this.threadId,
      status: 'failed',
      error,
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 },
      durationMs: 0,
    });
    return this.store.runs.get(this.id).then(
      (stored) =>
        stored?.ending
          ? { runId: this.id, threadId: this.threadId, ...(stored.ending as RunEnding) }
          : gone('the run is no longer retained'),
      (err: unknown) => gone(`reading the run from the run store failed: ${String(err)}`),
    );
  }

  events(afterSeq = 0): AsyncIterable<GraphEvent> {
    return replay(this.store, this.id, afterSeq);
  }
}

async function* replay(store: RunStore, runId: string, afterSeq: number): AsyncGenerator<GraphEvent> {
  for (let after = Math.max(0, afterSeq); ;) {
    const page = (await store.events.read(runId, after, PAGE)) as unknown as GraphEvent[];
    for (const event of page) yield event;
    if (page.length < PAGE) return;
    after = page.at(-1)!.seq;
  }
}
