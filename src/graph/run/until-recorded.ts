/**
 * Settles once a run just started is in the run store: its first event has been delivered, and no event
 * reaches a reader before its commit, which carries a new run's record (durable/persist-events.ts). An endpoint that
 * answers with a run's id without streaming it (a fork's or a replay's 201) waits for this first, so the id it
 * gives is one `GET /api/runs/:id` and a restart already know: under load the answer went out before the
 * commit, and a client asking at once got 404 (test/integration/timetravel/fork-record.test.ts, Node 20, three
 * test workers). A run refused at admission has no record to wait for.
 */
import type { RunHandle } from './engine-port.ts';

export async function untilRecorded(handle: RunHandle): Promise<void> {
  if (!(await handle.admission).admitted) return;
  const events = handle.events()[Symbol.asyncIterator]();
  try {
    await events.next();
  } finally {
    // Detaches this reader only; the run goes on.
    await events.return?.();
  }
}
