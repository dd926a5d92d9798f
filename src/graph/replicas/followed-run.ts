/**
 * A run executing on another replica, as this one serves it: its events come from the shared run
 * store, read again whenever the executing replica says the log grew (and every second regardless,
 * so a lost message costs a second, never an event). Its result settles when the log shows run.finished.
 */
import type { Cluster } from '../../cluster/types.ts';
import type { ApprovalPort } from '../../hitl/types.ts';
import type { RunStore, StoredRun } from '../../store/runs/run-store.ts';
import { ADMITTED } from '../spending/admission.ts';
import type { RunHandle, RunResult } from '../run/engine-port.ts';
import type { GraphEvent, RunEnding } from '../run/events.ts';
import { runApprovals } from '../run/approvals.ts';
import { runEventsChannel } from './channels.ts';

const PAGE = 500;
const POLL_MS = 1_000;

export interface FollowedRun extends RunHandle {
  /** The executing replica said the run ended: its result settles even if nobody reads its events. */
  ended(ending: RunEnding): void;
  /** This replica is closing: readers end once they have read what is stored. */
  stop(): void;
}

export function followedRunHandle(
  stored: StoredRun,
  store: RunStore,
  cluster: Cluster,
  approvals: ApprovalPort,
): FollowedRun {
  let settle!: (result: RunResult) => void;
  const result = new Promise<RunResult>((resolve) => (settle = resolve));
  /** Wakes every waiting reader: new events, or stop(). */
  let wake: () => void = () => {};
  let woken = new Promise<void>((resolve) => (wake = resolve));
  const rouse = () => {
    wake();
    woken = new Promise<void>((resolve) => (wake = resolve));
  };
  let readers = 0;
  let unsubscribe: (() => void) | undefined;
  let stopped = false;

  const finish = (event: GraphEvent & { type: 'run.finished' }) => {
    const { type: _type, runId: _runId, seq: _seq, at: _at, ...ending } = event;
    settle({ runId: stored.id, threadId: stored.threadId, ...(ending as RunEnding) });
  };

  async function* events(afterSeq = 0): AsyncGenerator<GraphEvent> {
    if (readers++ === 0) unsubscribe = cluster.subscribe(runEventsChannel(stored.id), rouse);
    try {
      for (let after = Math.max(0, afterSeq); ;) {
        const next = woken;
        const page = (await store.events.read(stored.id, after, PAGE)) as unknown as GraphEvent[];
        for (const event of page) {
          yield event;
          after = event.seq;
          if (event.type === 'run.finished') return finish(event);
        }
        if (page.length === PAGE) continue;
        if (stopped && page.length === 0) return;
        await Promise.race([next, new Promise((r) => setTimeout(r, POLL_MS).unref())]);
      }
    } finally {
      if (--readers === 0) {
        unsubscribe?.();
        unsubscribe = undefined;
      }
    }
  }

  return {
    id: stored.id,
    threadId: stored.threadId,
    callerId: stored.callerId,
    admission: Promise.resolve(ADMITTED),
    result,
    events,
    // Its approvals are relayed to this replica (hitl/replicas.ts): listed and answered here.
    ...runApprovals(approvals, stored.id, stored.callerId),
    ended(ending) {
      settle({ runId: stored.id, threadId: stored.threadId, ...ending });
    },
    stop() {
      stopped = true;
      rouse();
    },
  };
}
