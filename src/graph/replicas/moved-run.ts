/**
 * A run's handle on the replica executing it, as its clients hold it (docs/deployment.md, "Replicas"):
 * if the run moves to another replica while they read — this one could not renew its lease in time
 * and another took the run over (replica-runs.ts) — its events read on from the shared store where the
 * local log stopped, each under its seq, and its result is the one the run ends with there. A run
 * stopped here for any other reason (this replica shutting down) ends its readers as before.
 */
import type { GraphEvent } from '../run/events.ts';
import type { RunHandle } from '../run/engine-port.ts';
import type { FollowedRun } from './followed-run.ts';

export function followingMoves(handle: RunHandle, moved: () => FollowedRun | undefined): RunHandle {
  return {
    ...handle,
    result: handle.result.then((result) => moved()?.result ?? result),
    events: (afterSeq = 0) => readOn(handle.events(afterSeq), afterSeq, moved),
  };
}

async function* readOn(
  local: AsyncIterable<GraphEvent>,
  afterSeq: number,
  moved: () => FollowedRun | undefined,
): AsyncGenerator<GraphEvent> {
  let after = afterSeq;
  for await (const event of local) {
    yield event;
    after = event.seq;
  }
  const elsewhere = moved();
  if (elsewhere) yield* elsewhere.events(after);
}
