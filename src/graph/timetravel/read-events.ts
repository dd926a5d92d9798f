/**
 * A run's events so far, without waiting for more: a finished run's whole log, a running (or waiting)
 * run's log up to the last event it emitted when asked. Consumers are held at an event until it is
 * committed (run/event-log.ts), so this may wait for a commit, never for the run. A handle without
 * lastSeq (a run followed from another replica's store) is read until the next event is not at hand.
 */
import type { RunHandle } from '../run/engine-port.ts';
import type { GraphEvent } from '../run/events.ts';

export async function eventsSoFar(handle: RunHandle): Promise<GraphEvent[]> {
  const until = handle.lastSeq?.();
  const events: GraphEvent[] = [];
  if (until === 0) return events;
  const iterator = handle.events(0)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next =
        until !== undefined
          ? await iterator.next()
          : await Promise.race([
              iterator.next(),
              // A store page read answers well within this; a run that has nothing new does not answer at all.
              new Promise<'idle'>((resolve) => setTimeout(() => resolve('idle'), 500)),
            ]);
      if (next === 'idle' || next.done) break;
      events.push(next.value);
      if (until !== undefined && next.value.seq >= until) break;
    }
  } finally {
    await iterator.return?.();
  }
  return events;
}
