/** Small readers over a run's events and the scripted model's request log, for the engine tests. */
import type { GraphEvent, GraphEventOf, GraphEventType } from '../../src/graph/run/events.ts';

export function ofType<T extends GraphEventType>(events: GraphEvent[], type: T): GraphEventOf<T>[] {
  return events.filter((e): e is GraphEventOf<T> => e.type === type);
}

export const ms = (iso: string) => Date.parse(iso);

/** Requests the scripted server saw for one run, optionally of one schema name. */
export function callsOf<R extends { runId?: string; schemaName?: string }>(
  requests: R[],
  runId: string,
  schemaName?: string,
): R[] {
  return requests.filter((r) => r.runId === runId && (schemaName === undefined || r.schemaName === schemaName));
}
