/**
 * What a run writes to the run store as it goes (docs/durability.md): every event into its event log,
 * the plan and each finished step into its checkpoint, and its record once it ends. The engine never
 * waits for a write; each event hands its commit back and the run's event log holds consumers at it
 * until then, so no client is told anything a kill -9 could take back.
 *
 * Events go in batches: what a turn of the event loop emits, and everything emitted while the run's
 * previous batch commits (a streamed answer's deltas), is one append with the checkpoints that go with
 * it, and shares one promise, so a run of ~450 events costs a few dozen writes, not one per event.
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../events.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { RunRecord } from '../../knowledge/store.ts';

export interface PersistedRun {
  record: StoredRun;
  /** The run's current plan (read when a step finishes: the checkpoint keeps the step as planned). */
  plan(): GraphPlan | undefined;
  /**
   * The execution-memory record of the run, read when it finishes: stored with its end (`remembered: false`)
   * until the knowledge store has it, so a kill -9 before that loses nothing (durable/recover.ts).
   */
  memory?(): RunRecord | undefined;
}

export function persistEvents(
  store: RunStore,
  run: PersistedRun,
  logger: Logger,
): (event: GraphEvent) => Promise<unknown> {
  // The store retried the write and marked the run degraded (logged, GET /ready); the run goes on in
  // memory and its clients are not held. One line per run here: a degraded run fails every write.
  let told = false;
  const failed = (what: string) => (err: unknown) => {
    if (told) return;
    told = true;
    logger.error(`run store: ${what} failed; the run goes on in memory`, { runId: run.record.id, error: String(err) });
  };
  const runId = run.record.id;
  /** The batch events join until it is sent; every event of it gets the batch's one promise. */
  let open: Batch | undefined;
  /** A batch sent and not yet committed: the next one is sent when it is. */
  let sending = false;

  const send = () => {
    const batch = open;
    if (!batch) return;
    open = undefined;
    sending = true;
    // One append for the batch's events and its checkpoints beside it: the store commits them in the order asked.
    const writes: Promise<unknown>[] = [store.events.append(runId, batch.events).catch(failed('appending an event'))];
    for (const write of batch.checkpoints) writes.push(write());
    const committed = writes.length === 1 ? writes[0]! : Promise.all(writes);
    void committed.then(() => {
      batch.resolve();
      sending = false;
      // What came while this batch committed goes now, together.
      if (open) send();
    });
  };

  /** The write that goes with an event a recovery needs (the plan, a finished step, the end), or undefined. */
  const checkpointOf = (event: GraphEvent): (() => Promise<unknown>) | undefined => {
    if (event.type === 'plan.ready') {
      return () => store.checkpoints.savePlan(runId, event.plan, event.round).catch(failed('checkpointing a plan'));
    }
    if (event.type === 'step.finished') {
      // Read now: the checkpoint keeps the step as planned when it finished.
      const step = run.plan()?.steps.find((s) => s.id === event.stepId);
      const { type: _type, runId: _runId, seq: _seq, at: _at, ...outcome } = event;
      return () =>
        store.checkpoints
          .saveStep(runId, { stepId: event.stepId, step, outcome })
          .catch(failed('checkpointing a step'));
    }
    if (event.type === 'run.finished') {
      const { type: _type, runId: _runId, seq: _seq, at: _at, ...ending } = event;
      const at = Date.parse(event.at);
      const memory = run.memory?.();
      const end: StoredRun = {
        ...run.record,
        status: event.status,
        ending,
        updatedAt: Number.isNaN(at) ? Date.now() : at,
        ...(memory ? { memory, remembered: false } : {}),
      };
      return () => store.runs.put(end).catch(failed('recording the end of a run'));
    }
    return undefined;
  };

  return (event) => {
    let batch = open;
    if (!batch) {
      let resolve!: () => void;
      const committed = new Promise<void>((r) => (resolve = r));
      batch = open = { events: [], checkpoints: [], committed, resolve };
      // Nothing in flight: the batch goes at the end of this turn, with whatever else the turn emits.
      if (!sending) queueMicrotask(send);
    }
    batch.events.push(event as unknown as StoredEvent);
    const checkpoint = checkpointOf(event);
    if (checkpoint) batch.checkpoints.push(checkpoint);
    // The end goes at once: the engine's own writes after it (the run's record for execution memory)
    // must be queued behind it, never before.
    if (event.type === 'run.finished') send();
    return batch.committed;
  };
}

/** Events emitted while the previous batch commits, sent together: one append, one promise. */
interface Batch {
  events: StoredEvent[];
  checkpoints: (() => Promise<unknown>)[];
  committed: Promise<void>;
  resolve: () => void;
}
