/**
 * What a run writes to the run store as it goes (docs/durability.md): every event into its event log,
 * the plan and each finished step into its checkpoint, and its record once it ends. The engine never
 * waits for a write; each event hands its commit back and the run's event log holds consumers at it
 * until then, so no client is told anything a kill -9 could take back.
 *
 * Events go in batches: what a turn of the event loop emits, and everything emitted while the run's
 * previous batch commits (a streamed answer's deltas), is one append with the checkpoints that go with
 * it, and shares one promise, so a run of ~450 events costs a few dozen writes, not one per event.
 *
 * A new run's record goes with its first batch and its thread turn with its last (the one holding
 * `run.finished`): LMDB commits the writes of one turn of the event loop together, so each is one commit
 * less per run, and neither event reaches a consumer before the write that goes with it is committed.
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../run/events.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { RunRecord } from '../../knowledge/store.ts';
import type { RunState } from '../run/state.ts';

export interface PersistedRun {
  record: StoredRun;
  /** The run's current plan (read when a step finishes: the checkpoint keeps the step as planned). */
  plan(): GraphPlan | undefined;
  /**
   * The execution-memory record of the run, read when it finishes: stored with its end (`remembered: false`)
   * until the knowledge store has it, so a kill -9 before that loses nothing (durable/recover.ts).
   */
  memory?(): RunRecord | undefined;
  /**
   * A new run (not one resumed after a restart): its record is put with the first batch of its events, so
   * the store never shows an event of a run it does not know.
   */
  fresh?: boolean;
  /**
   * The write of the run's turn in its thread, read when it finishes: it goes with `run.finished`, which
   * reaches no consumer before the turn is stored (a client that saw the end can ask again at once).
   * Settles, never fails (a failure is logged by the writer).
   */
  turn?(): (() => Promise<void>) | undefined;
}

/** What a run's persister reads that the run makes later: the run itself, and its memory record and turn at its end. */
export interface Made {
  run?: RunState;
  memory?: RunRecord;
  /** The write of the run's turn in its thread, handed to its persister with run.finished. */
  turn?: () => Promise<void>;
}

/**
 * The persister of a run the engine launches, none without a run store: a new run's record goes with
 * its first events, its thread turn with run.finished (one commit each).
 */
export function runPersister(
  store: RunStore | undefined,
  record: StoredRun,
  fresh: boolean,
  made: Made,
  logger: Logger,
): ((event: GraphEvent) => Promise<unknown>) | undefined {
  if (!store) return undefined;
  const run: PersistedRun = {
    record,
    fresh,
    plan: () => made.run?.plan,
    memory: () => made.memory,
    turn: () => made.turn,
  };
  return persistEvents(store, run, logger);
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
  /** The run's record goes with its first batch. */
  let unrecorded = run.fresh === true;

  const send = () => {
    const batch = open;
    if (!batch) return;
    open = undefined;
    sending = true;
    // One append for the batch's events and its checkpoints beside it: the store commits them in the order asked.
    const writes: Promise<unknown>[] = [store.events.append(runId, batch.events).catch(failed('appending an event'))];
    if (unrecorded) {
      unrecorded = false;
      // Before the batch's checkpoints: a run ending in its first batch puts its end record last.
      writes.push(store.runs.put(run.record).catch(failed('recording the run')));
    }
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
      const turn = run.turn?.();
      const recordEnd = () => store.runs.put(end).catch(failed('recording the end of a run'));
      return turn ? () => Promise.all([recordEnd(), turn()]) : recordEnd;
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
    // The end goes at once when nothing is in flight, else as soon as the batch before it commits, like any
    // batch: its writes (events, end record, thread turn) are then made in one turn, one commit. Nothing the
    // engine writes for the run after it is in the run's queue (markRemembered waits for this commit).
    if (event.type === 'run.finished' && !sending) send();
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
