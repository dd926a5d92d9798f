/**
 * A finished run known only from the run store (it finished before this process started): its handle
 * replays the stored event log, page by page, and its result is the stored ending.
 */
import type { ApprovalPort } from '../../hitl/types.ts';
import type { RunStore, StoredRun } from '../../store/runs/run-store.ts';
import { ADMITTED } from '../admission.ts';
import type { RunHandle, RunResult } from '../contract.ts';
import type { GraphEvent, RunEnding } from '../events.ts';
import { runApprovals } from '../run-approvals.ts';

const PAGE = 500;

export function storedRunHandle(stored: StoredRun, store: RunStore, approvals: ApprovalPort): RunHandle {
  const result: RunResult = { runId: stored.id, threadId: stored.threadId, ...(stored.ending as RunEnding) };
  return {
    id: stored.id,
    threadId: stored.threadId,
    callerId: stored.callerId,
    admission: Promise.resolve(ADMITTED),
    result: Promise.resolve(result),
    events: (afterSeq = 0) => replay(store, stored.id, afterSeq),
    // A late answer to one of its approvals reads already_resolved, as through POST /api/approve.
    ...runApprovals(approvals, stored.id, stored.callerId),
  };
}

async function* replay(store: RunStore, runId: string, afterSeq: number): AsyncGenerator<GraphEvent> {
  for (let after = Math.max(0, afterSeq); ;) {
    const page = (await store.events.read(runId, after, PAGE)) as unknown as GraphEvent[];
    for (const event of page) yield event;
    if (page.length < PAGE) return;
    after = page.at(-1)!.seq;
  }
}
