/**
 * A run's events so far, without waiting for more: a finished run's whole log, a running (or waiting)
 * run's log up to the last event it emitted when asked. Consumers are held at an event until it is
 * committed (run-event-log.ts), so this may wait for a commit, never for the run.
 */
import type { RunHandle } from '../contract.ts';
import type { GraphEvent } from '../events.ts';

export async function eventsSoFar(handle: RunHandle): Promise<GraphEvent[]> {
  const until = handle.lastSeq?.();
  const events: GraphEvent[] = [];
  if (until === 0) return events;
  for await (const event of handle.events(0)) {
    events.push(event);
    if (until !== undefined && event.seq >= until) break;
  }
  return events;
}
