/**
 * No silent failure for the run store (issue 31, docs/durability.md "When the store fails"): every write of
 * a run goes through one queue per run, in the order asked, and a write that fails is retried with
 * backoff while this process lives, so a database restart never leaves a hole in a run's event log
 * (seq N+1 is never written before N: the writes after a failed one wait behind it).
 *
 * A write still failing after `degradeAfterMs` marks its run degraded: logged once with the run id,
 * listed by degraded() (GET /ready, `parley status`), and its waiters are told it failed so the run goes
 * on in memory and its clients are not held. The write is still retried in the background (every
 * `maxBackoffMs` at most) and the run is no longer degraded once it is committed. Only closing the store
 * gives a write up (logged with the run id: what a stop during an outage loses).
 *
 * The writes queued while one batch commits go together in the next: its events in one append (a streamed
 * answer's deltas share a commit), its other writes beside it.
 */
import type { Logger } from '../../log.ts';
import type { RunStore, StoredEvent } from './run-store.ts';

export interface DegradedRun {
  runId: string;
  /** The write that fails: "appending events", "recording the run", … */
  what: string;
  error: string;
  /** ISO time the run became degraded. */
  since: string;
}

export interface ReliableRunStore extends RunStore {
  /** The runs whose writes fail beyond degradeAfterMs now (oldest first). */
  degraded(): DegradedRun[];
}

export interface ReliableOptions {
  logger: Logger;
  /** How long a write may fail before its run is degraded (default 10 s). */
  degradeAfterMs?: number;
  /** First retry delay (default 50 ms), doubled up to maxBackoffMs (default 2 s). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** Errors no retry can fix (a constraint, a malformed value): given up at once, logged, run degraded. */
  isPermanent?: (err: unknown) => boolean;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

type Write =
  | { kind: 'events'; events: readonly StoredEvent[]; waiter?: Waiter }
  | {
      kind: 'other';
      what: string;
      run: () => Promise<void>;
      /** The run's record: a later put replaces an earlier one of the same batch (the whole record is written). */
      record?: boolean;
      /** Goes alone, after everything before it (forget). */
      barrier?: boolean;
      waiter?: Waiter;
    };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function reliableRunStore(store: RunStore, options: ReliableOptions): ReliableRunStore {
  const { logger } = options;
  const degradeAfterMs = options.degradeAfterMs ?? 10_000;
  const firstBackoffMs = options.firstBackoffMs ?? 50;
  const maxBackoffMs = options.maxBackoffMs ?? 2_000;
  const isPermanent = options.isPermanent ?? (() => false);
  const queues = new Map<string, Write[]>();
  const draining = new Set<Promise<void>>();
  const degraded = new Map<string, DegradedRun>();
  /** Runs a write of which was given up: degraded for good (bounded by the runs of this process). */
  const lost = new Set<string>();
  const sleepers = new Set<() => void>();
  let closing = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const settle = (writes: Write[], err?: unknown) => {
    for (const w of writes) {
      const waiter = w.waiter;
      w.waiter = undefined;
      if (!waiter) continue;
      if (err === undefined) waiter.resolve();
      else waiter.reject(err);
    }
  };

  const degrade = (runId: string, what: string, err: unknown, retrying: boolean) => {
    if (degraded.has(runId)) return;
    degraded.set(runId, { runId, what, error: message(err), since: new Date().toISOString() });
    logger.error(`run store: ${what} failed; the run is degraded${retrying ? ' (still retrying)' : ''}`, {
      runId,
      error: message(err),
    });
  };

  /**
   * The writes at the head of a queue that go together: everything queued up to a barrier (forget). They
   * are sent at once — LMDB commits them in one transaction, as before the queue — with the events in one
   * append (in order) and only the last put of the run's record (a put writes the whole record, so an
   * earlier one landing last could take back what the later one says).
   */
  const takeBatch = (queue: Write[]): Write[] => {
    if (queue[0]!.kind === 'other' && queue[0]!.barrier) return queue.splice(0, 1);
    const n = queue.findIndex((w) => w.kind === 'other' && w.barrier === true);
    return queue.splice(0, n === -1 ? queue.length : n);
  };

  const perform = (runId: string, batch: Write[]): Promise<unknown> => {
    const events = batch.flatMap((w) => (w.kind === 'events' ? w.events : []));
    const others = batch.filter((w): w is Extract<Write, { kind: 'other' }> => w.kind === 'other');
    const lastRecord = others.findLast((w) => w.record);
    return Promise.all([
      ...(events.length > 0 ? [store.events.append(runId, events)] : []),
      ...others.filter((w) => !w.record || w === lastRecord).map((w) => w.run()),
    ]);
  };

  /** Tries one batch until it commits, the error is permanent, or the store closes. */
  const commit = async (runId: string, batch: Write[]) => {
    const what = [...new Set(batch.map((w) => (w.kind === 'events' ? 'appending events' : w.what)))].join(', ');
    const started = Date.now();
    for (let backoff = firstBackoffMs, attempt = 1; ; attempt++) {
      try {
        await perform(runId, batch);
        settle(batch);
        return;
      } catch (err) {
        if (closing || isPermanent(err)) {
          const why = closing ? 'the store closed before it could be written' : 'not retried: the store refused it';
          degrade(runId, what, err, false);
          lost.add(runId);
          logger.error(`run store: ${what} is lost (${why})`, { runId, error: message(err), attempts: attempt });
          settle(batch, err);
          return;
        }
        if (Date.now() - started >= degradeAfterMs) {
          degrade(runId, what, err, true);
          settle(batch, err);
        } else if (attempt === 1) {
          logger.warn(`run store: ${what} failed; retrying`, { runId, error: message(err) });
        }
        await sleep(backoff + Math.floor(Math.random() * backoff * 0.2));
        backoff = Math.min(backoff * 2, maxBackoffMs);
      }
    }
  };

  const drain = async (runId: string, queue: Write[]) => {
    // What the engine writes in the same turn (an event with its checkpoint, the end with its record) goes in one batch.
    await Promise.resolve();
    while (queue.length > 0) await commit(runId, takeBatch(queue));
    queues.delete(runId);
    // Every write of the run is committed now; one given up (lost) keeps the run degraded.
    if (!lost.has(runId) && degraded.delete(runId))
      logger.info('run store: the writes of a degraded run are committed again', { runId });
  };

  const enqueue = (runId: string, write: Write): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      // A degraded run's writes wait behind the failing one (order), but its callers are not held.
      if (degraded.has(runId))
        reject(new Error(`the run store cannot write run ${runId} now (${degraded.get(runId)!.error})`));
      else write.waiter = { resolve, reject };
      const queue = queues.get(runId);
      if (queue) return void queue.push(write);
      const fresh = [write];
      queues.set(runId, fresh);
      const done = drain(runId, fresh);
      draining.add(done);
      void done.finally(() => draining.delete(done));
    });

  const other = (
    runId: string,
    what: string,
    run: () => Promise<void>,
    flags: { record?: boolean; barrier?: boolean } = {},
  ) => enqueue(runId, { kind: 'other', what, run, ...flags });

  /** A write that belongs to no run's queue (an approval's decision by id): retried up to degradeAfterMs. */
  const retried = async <T>(what: string, fields: Record<string, unknown>, run: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    for (let backoff = firstBackoffMs; ; backoff = Math.min(backoff * 2, maxBackoffMs)) {
      try {
        return await run();
      } catch (err) {
        if (closing || isPermanent(err) || Date.now() - started >= degradeAfterMs) {
          logger.error(`run store: ${what} failed`, { ...fields, error: message(err) });
          throw err;
        }
        await sleep(backoff);
      }
    }
  };

  return {
    runs: {
      put: (run) => other(run.id, 'recording the run', () => store.runs.put(run), { record: true }),
      get: (id) => store.runs.get(id),
      listUnfinished: () => store.runs.listUnfinished(),
      listFinished: () => store.runs.listFinished(),
      // Not in a run's queue: it writes nothing for a run forgotten meanwhile, so its order does not matter.
      markRemembered: (ids) =>
        ids.length === 0
          ? Promise.resolve()
          : retried('noting runs as remembered', { runs: ids.length }, () => store.runs.markRemembered(ids)),
    },
    checkpoints: {
      savePlan: (runId, plan, round) =>
        other(runId, 'checkpointing a plan', () => store.checkpoints.savePlan(runId, plan, round)),
      saveStep: (runId, step) => other(runId, 'checkpointing a step', () => store.checkpoints.saveStep(runId, step)),
      load: (runId) => store.checkpoints.load(runId),
    },
    events: {
      append: (runId, events) => (events.length === 0 ? Promise.resolve() : enqueue(runId, { kind: 'events', events })),
      read: (runId, afterSeq, limit) => store.events.read(runId, afterSeq, limit),
    },
    approvals: {
      putPending: (a) =>
        retried('recording an approval request', { runId: a.runId, approvalId: a.id }, () =>
          store.approvals.putPending(a),
        ),
      decide: (id, outcome) =>
        retried('recording a decision', { approvalId: id }, () => store.approvals.decide(id, outcome)),
      get: (id) => store.approvals.get(id),
      listPending: () => store.approvals.listPending(),
      listForRun: (runId) => store.approvals.listForRun(runId),
    },
    // After every write of the run, so nothing it still had queued brings it back.
    forget: (runId) =>
      other(runId, 'forgetting the run', () => store.forget(runId), { barrier: true }).then(() => {
        lost.delete(runId);
        degraded.delete(runId);
      }),
    degraded: () => [...degraded.values()],
    async close() {
      // Writes in flight or retrying get one more try each; then what still fails is logged as lost.
      closing = true;
      for (const wake of [...sleepers]) wake();
      // Until nothing drains: a run's persister hands over the batch it gathered while its previous one
      // committed once that commit settles (graph/durable/persist-events.ts), i.e. a few microtasks after
      // a drain ends; a turn of the event loop lets it, so that batch is written rather than lost.
      do {
        await Promise.all([...draining]);
        await new Promise<void>((resolve) => setImmediate(resolve));
      } while (draining.size > 0);
      await store.close();
    },
  };
}
