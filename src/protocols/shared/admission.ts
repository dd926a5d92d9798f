/**
 * Admission before a streaming response is committed. The engine tells (RunHandle.admission)
 * whether the caller's rate limit and window budgets let the run through; a refused run ends
 * "blocked" before any model call, and HTTP adapters answer it with 429 + Retry-After instead of
 * a stream. An admitted run's events are read from the start, so nothing emitted meanwhile is lost.
 */
import type { GraphEvent, RunHandle } from '../../graph/contract.ts';

export type Admitted =
  { admitted: false; error: string; retryAfterMs: number } | { admitted: true; events: AsyncIterator<GraphEvent> };

export async function admit(handle: RunHandle): Promise<Admitted> {
  const admission = await handle.admission;
  if (!admission.admitted) return admission;
  return { admitted: true, events: handle.events()[Symbol.asyncIterator]() };
}

/** Seconds for a Retry-After header (at least 1). */
export const retryAfterSeconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));
