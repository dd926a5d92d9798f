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
 *
 * A batch of streamed text only (answer.delta, model.thought) waits up to STREAM_LINGER_MS for more before
 * it is sent, and goes at once with the next event of another kind: a streamed answer is a commit (and a
 * flush to disk) every STREAM_LINGER_MS, not one per network read, and at most that much later in a
 * consumer's hands. Nothing is told before its commit, as for every batch (issue 47).
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent, StoredRun } from '../../store/runs/run-store.ts';
import type { GraphEvent } from '../run/events.ts';
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { RunRecord } from '../../knowledge/store.ts';
import type { RunState } from '../run/state.ts';

/**
 * How long a batch of streamed text waits for more before it is committed. A provider streams a token every
 * ~10–50 ms: a few tokens per commit, and text still reaches a reader well within a human's reading pace.
 */
export const STREAM_LINGER_MS = 25;

/** Streamed text: an event a reader sees go by, committed in groups (STREAM_LINGER_MS). */
const streamed = (event: GraphEvent) => event.type === 'answer.delta' || event.type === 'model.thought';

/** Hands each event of a run to the store (the promise of its commit); flush() sends what it holds back now. */
export type RunPersister = ((event: GraphEvent) => Promise<unknown>) & { flush(): void };

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
): RunPersister | undefined {
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

export function persistEvents(store: RunStore, run: PersistedRun, logger: Logger): RunPersister {
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
  /** The open batch is streamed text only, waiting for more until this timer fires. */
  let lingering: ReturnType<typeof setTimeout> | undefined;

  const send = () => {
    const batch = open;
    // One batch in flight at a time: a send queued before another went finds it sending (the commit's callback sends next).
    if (!batch || sending) return;
    if (lingering) clearTimeout(lingering);
    lingering = undefined;
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
      // What came while this batch committed goes now, together (streamed text only: when its wait is over).
      if (open) sendOrLinger(open);
    });
  };

  /** Sends the batch now, or, streamed text only, when it has waited STREAM_LINGER_MS since it opened. */
  const sendOrLinger = (batch: Batch) => {
    if (!batch.streamOnly) return send();
    const wait = STREAM_LINGER_MS - (performance.now() - batch.openedAt);
    if (wait <= 0) return send();
    lingering = setTimeout(send, wait);
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

  const persist = (event: GraphEvent): Promise<unknown> => {
    let batch = open;
    const stream = streamed(event);
    if (!batch) {
      let resolve!: () => void;
      const committed = new Promise<void>((r) => (resolve = r));
      batch = open = { events: [], checkpoints: [], committed, resolve, streamOnly: stream, openedAt: 0 };
      if (stream) {
        batch.openedAt = performance.now();
        // Streamed text waits for more (or for an event of another kind) unless a commit is in flight.
        if (!sending) lingering = setTimeout(send, STREAM_LINGER_MS);
      }
      // Nothing in flight: the batch goes at the end of this turn of the event loop, with whatever else the
      // turn emits (a node's last events, the walk's node.finished and the next node.started, the run's end).
      else if (!sending) setImmediate(send);
    } else if (!stream && batch.streamOnly) {
      // An event of another kind goes at the end of this turn, with the streamed text before it.
      batch.streamOnly = false;
      if (lingering) {
        clearTimeout(lingering);
        lingering = undefined;
        setImmediate(send);
      }
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
  // The log ended without run.finished (the process stops): what waits goes now, or after the commit in flight.
  const flush = () => {
    if (!open) return;
    open.streamOnly = false;
    send();
  };
  return Object.assign(persist, { flush });
}

/** Events emitted while the previous batch commits, sent together: one append, one promise. */
interface Batch {
  events: StoredEvent[];
  checkpoints: (() => Promise<unknown>)[];
  committed: Promise<void>;
  resolve: () => void;
  /** Only streamed text so far: it may wait for more (STREAM_LINGER_MS). */
  streamOnly: boolean;
  /** When a streamed-text batch opened (performance.now()). */
  openedAt: number;
}
