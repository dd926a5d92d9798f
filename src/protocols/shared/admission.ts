/**
 * Admission before a streaming response is committed. A run refused by the caller's rate limit (or
 * window budget) ends in its usage_guard with status "blocked" and retryAfterMs, before any model
 * call; HTTP adapters answer that with 429 + Retry-After instead of a stream. So they read the
 * run's first events (emitted synchronously by the engine, so this costs microseconds) until the
 * guard has spoken, then stream those events followed by the rest from the same consumer.
 */
import type { GraphEvent, GraphEventOf, RunHandle } from '../../graph/contract.ts';

export type Admission =
  | { admitted: false; finished: GraphEventOf<'run.finished'>; retryAfterMs: number }
  | { admitted: true; events: AsyncIterator<GraphEvent> };

export async function admit(handle: RunHandle): Promise<Admission> {
  const rest = handle.events()[Symbol.asyncIterator]();
  const seen: GraphEvent[] = [];
  for (;;) {
    const next = await rest.next();
    if (next.done) break;
    const event = next.value;
    seen.push(event);
    if (event.type === 'run.finished') {
      if (event.status === 'blocked' && event.retryAfterMs !== undefined) {
        await rest.return?.();
        return { admitted: false, finished: event, retryAfterMs: event.retryAfterMs };
      }
      break;
    }
    // The guard let the run through (a refusal goes on to run.finished, read above).
    if (event.type === 'node.finished' && event.node === 'usage_guard' && event.next !== 'end') break;
    if (event.type === 'node.started' && event.node !== 'usage_guard') break;
  }
  return { admitted: true, events: chain(seen, rest) };
}

/** Seconds for a Retry-After header (at least 1). */
export const retryAfterSeconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/**
 * The events already read, then the rest. return() goes straight to the engine's consumer, which
 * detaches it and settles a pending next() as done: that is how a reader stops waiting at once
 * when its client goes away.
 */
function chain(seen: GraphEvent[], rest: AsyncIterator<GraphEvent>): AsyncIterator<GraphEvent> {
  let i = 0;
  const ended = seen.at(-1)?.type === 'run.finished';
  return {
    next: async () => {
      if (i < seen.length) return { value: seen[i++]!, done: false };
      if (ended) return { value: undefined, done: true };
      return rest.next();
    },
    return: async () => {
      await rest.return?.();
      return { value: undefined, done: true };
    },
  };
}
