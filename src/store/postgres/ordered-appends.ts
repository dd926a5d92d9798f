/**
 * Appends to one run's event log, committed in the order they were asked for. Separate statements on a
 * pool commit in any order, so a reader on another replica (or the next start after kill -9) could see
 * seq 29 stored while 23 never was; here a run has one INSERT in flight at a time, and whatever arrives
 * meanwhile goes into the next one. Fewer statements too: a run's token deltas share a commit.
 */
import type { StoredEvent } from '../runs/run-store.ts';

interface Waiting {
  events: readonly StoredEvent[];
  resolve(): void;
  reject(err: unknown): void;
}

export function orderedAppends(
  insert: (runId: string, events: readonly StoredEvent[]) => Promise<void>,
): (runId: string, events: readonly StoredEvent[]) => Promise<void> {
  const queues = new Map<string, Waiting[]>();
  const drain = async (runId: string, queue: Waiting[]) => {
    while (queue.length > 0) {
      const batch = queue.splice(0);
      try {
        await insert(
          runId,
          batch.flatMap((w) => w.events),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    queues.delete(runId);
  };
  return (runId, events) =>
    new Promise<void>((resolve, reject) => {
      const queue = queues.get(runId);
      if (queue) return void queue.push({ events, resolve, reject });
      const fresh: Waiting[] = [{ events, resolve, reject }];
      queues.set(runId, fresh);
      void drain(runId, fresh);
    });
}
