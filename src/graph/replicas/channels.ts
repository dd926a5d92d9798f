/**
 * What replicas tell each other about runs (docs/deployment.md, "Replicas"). Channel names and
 * message shapes in one place; the Cluster carries them (src/cluster/types.ts).
 */
export const RUNS_CHANNEL = 'runs';

/** A run starting or ending on some replica, or a cancel for whichever replica holds it. */
export type RunsMessage =
  | { type: 'started'; id: string; callerId: string; threadId: string; replicaId: string }
  | { type: 'finished'; id: string }
  | { type: 'cancel'; id: string; reason?: string };

/** "The run's event log has grown to `seq`": followers on other replicas read the new events from the store. */
export const runEventsChannel = (runId: string) => `run:${runId}`;
export interface RunEventsMessage {
  seq: number;
}

/** The lease a replica holds while it executes a run. */
export const runLeaseKey = (runId: string) => `lease:run:${runId}`;
/** Set when a cancel was asked for while no replica held the run: a replica taking it over ends it cancelled. */
export const cancelKey = (runId: string) => `cancel:${runId}`;
