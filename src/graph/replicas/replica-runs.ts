/**
 * Runs across replicas (docs/deployment.md, "Replicas"), for an engine whose Cluster is shared:
 *   - every run this replica executes holds a lease; its start and end are announced, and each growth
 *     of its event log is signalled so followers elsewhere read the new events from the shared store;
 *   - runs executing elsewhere are followed here (get, events, result), and a cancel for one is sent on;
 *   - a sweep (at start, then every half lease) takes over the runs whose replica stopped or died: it
 *     released the lease, or the lease has been missing a whole lease as this replica saw it. A lease
 *     that is merely missing proves nothing: Redis restarted empty (or lost the key), and its live holder
 *     takes it again at its next renewal (every third of a lease), well within that wait.
 *     This one then takes the lease and resumes the run from its checkpoint.
 * The engine keeps executing; this class only decides where and tells the others.
 */
import type { Cluster } from '../../cluster/types.ts';
import type { Logger } from '../../log.ts';
import type { RunStore, StoredApproval, StoredRun } from '../../store/runs/run-store.ts';
import type { ApprovalPort, ApprovalRequest } from '../../hitl/types.ts';
import type { RunEnding } from '../run/events.ts';
import { cancelKey, RUNS_CHANNEL, runEventsChannel, runLeaseKey, type RunsMessage } from './channels.ts';
import { followedRunHandle, type FollowedRun } from './followed-run.ts';
import { RunLeases } from './run-leases.ts';

/** What ReplicaRuns asks of the engine. */
export interface ReplicaEngineHooks {
  /** True when this replica executes (or retains) the run. */
  isLocal(runId: string): boolean;
  /** The runs this replica is executing now. */
  localRunning(): string[];
  /** Resumes a run whose replica died (its lease is now this one's); `cancelled`: a cancel was asked meanwhile. */
  resume(run: StoredRun, pending: StoredApproval[], cancelled: boolean): Promise<unknown>;
  /** Cancels a run this replica executes (false when it does not). */
  cancelLocal(runId: string, reason?: string): boolean;
  /** Stops a run whose lease went elsewhere, as it is (no end is recorded: the new holder goes on). */
  suspendLocal(runId: string, reason: string): void;
  /** A run another replica finished: retained here for replay like one finished here. */
  retainFinished(run: StoredRun): void;
  /** Pending approvals of the shared store (the broker lists those of other replicas from them). */
  syncApprovals(pending: ApprovalRequest[]): void;
}

const CANCEL_FLAG_MS = 24 * 3_600_000;

type RunIds = Pick<StoredRun, 'id' | 'callerId' | 'threadId'>;

export class ReplicaRuns {
  readonly #cluster: Cluster;
  readonly #store: RunStore;
  readonly #leaseMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #hooks: ReplicaEngineHooks;
  readonly #approvals: ApprovalPort;
  readonly #leases: RunLeases;
  readonly #remote = new Map<string, FollowedRun>();
  /** The runs this replica executes: what following one takes if it moves elsewhere. */
  readonly #local = new Map<string, RunIds>();
  /** When this replica first saw each run's lease missing, since when it has seen it missing at every sweep. */
  readonly #missingSince = new Map<string, number>();
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  #sweeping?: Promise<void>;

  constructor(options: {
    cluster: Cluster;
    store: RunStore;
    leaseMs: number;
    logger: Logger;
    now: () => number;
    hooks: ReplicaEngineHooks;
    /** The approvals a followed run's handle lists and answers. */
    approvals: ApprovalPort;
  }) {
    this.#cluster = options.cluster;
    this.#store = options.store;
    this.#leaseMs = options.leaseMs;
    this.#logger = options.logger;
    this.#now = options.now;
    this.#hooks = options.hooks;
    this.#approvals = options.approvals;
    this.#leases = new RunLeases(options.cluster, options.leaseMs, options.logger, (runId) => this.#lost(runId));
  }

  /** Subscribes, takes over what dead replicas left, and keeps sweeping. Call once, before serving. */
  async start(): Promise<void> {
    this.#unsubscribe = this.#cluster.subscribe(RUNS_CHANNEL, (m) => this.#onMessage(m as RunsMessage));
    await this.sweep();
    this.#timer = setInterval(() => void this.sweep(), Math.max(500, Math.floor(this.#leaseMs / 2)));
    this.#timer.unref();
  }

  /** A run from another replica this one follows. */
  remote(runId: string): FollowedRun | undefined {
    return this.#remote.get(runId);
  }

  /** A run starts (or resumes) here: lease it and tell the others. */
  started(run: { id: string; callerId: string; threadId: string }, resumed: boolean): void {
    // Taken over here: readers of the followed handle read on from the store, where this replica writes.
    this.#remote.delete(run.id);
    this.#local.set(run.id, { id: run.id, callerId: run.callerId, threadId: run.threadId });
    // A resumed run's lease was taken before it resumed.
    const lease = resumed ? Promise.resolve(true) : this.#leases.acquire(run.id);
    lease.then(
      (held) =>
        held || this.#logger.warn('replicas: another replica holds the lease of a new run id', { runId: run.id }),
      (err: unknown) => this.#logger.warn('replicas: leasing a run failed', { runId: run.id, error: String(err) }),
    );
    this.#tell({
      type: 'started',
      id: run.id,
      callerId: run.callerId,
      threadId: run.threadId,
      replicaId: this.#cluster.replicaId,
    });
  }

  /** A run executed here ended (or was suspended): free its lease, tell the others. */
  ended(runId: string, finished: boolean): void {
    this.#local.delete(runId);
    this.#leases.release(runId);
    if (finished) this.#tell({ type: 'finished', id: runId });
  }

  /**
   * Wraps a run's persister: once events are committed, followers elsewhere are told how far the log
   * goes. One message per batch of commits, not per event (a run emits hundreds of token deltas).
   */
  signalEvents<E extends { seq: number }>(
    runId: string,
    persist: ((event: E) => Promise<unknown>) & { flush?: () => void },
  ): ((event: E) => Promise<unknown>) & { flush?: () => void } {
    let latest = 0;
    let scheduled = false;
    const channel = runEventsChannel(runId);
    const send = () => {
      scheduled = false;
      // A lost signal costs latency only: followers poll the store each second regardless.
      this.#cluster.publish(channel, { seq: latest }).catch(() => {});
    };
    // Events committed together share one promise (persist-events.ts): they share one signal too.
    let lastIn: Promise<unknown> | undefined;
    let lastOut: Promise<unknown> | undefined;
    let batch = { seq: 0 };
    const signalled = (event: E) => {
      const committed = persist(event);
      if (committed === lastIn) {
        batch.seq = Math.max(batch.seq, event.seq);
        return lastOut!;
      }
      const mine = (batch = { seq: event.seq });
      lastIn = committed;
      lastOut = committed.then((value) => {
        latest = Math.max(latest, mine.seq);
        if (!scheduled) {
          scheduled = true;
          setImmediate(send);
        }
        return value;
      });
      return lastOut;
    };
    // The persister's flush (the log ended without run.finished) passes through.
    return persist.flush ? Object.assign(signalled, { flush: persist.flush }) : signalled;
  }

  /** A cancel for a run executing on another replica; false when no replica is known to run it. */
  async cancelRemote(runId: string, reason?: string): Promise<boolean> {
    if (!this.#remote.has(runId)) return false;
    // Kept as a flag too: if that replica died, the one taking the run over ends it cancelled.
    await this.#cluster.claim(cancelKey(runId), CANCEL_FLAG_MS);
    await this.#cluster.publish(RUNS_CHANNEL, { type: 'cancel', id: runId, ...(reason ? { reason } : {}) });
    return true;
  }

  /** Runs still unfinished in the store: followed when their replica lives, taken over when it died. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    try {
      const [unfinished, pending] = await Promise.all([
        this.#store.runs.listUnfinished(),
        this.#store.approvals.listPending(),
      ]);
      const open = new Set(unfinished.map((r) => r.id));
      for (const run of unfinished) {
        if (this.#hooks.isLocal(run.id)) continue;
        // A run younger than a lease may not hold its lease yet: its replica is still starting it.
        const orphan =
          this.#now() - run.createdAt >= this.#leaseMs &&
          (await this.#holderGone(run.id)) &&
          (await this.#leases.acquire(run.id));
        if (!orphan) {
          if (!this.#remote.has(run.id))
            this.#remote.set(run.id, followedRunHandle(run, this.#store, this.#cluster, this.#approvals));
          continue;
        }
        this.#missingSince.delete(run.id);
        this.#logger.info('replicas: taking over a run whose replica stopped', { runId: run.id });
        const cancelled = await this.#cluster.isClaimed(cancelKey(run.id));
        await this.#hooks.resume(
          run,
          pending.filter((a) => a.runId === run.id),
          cancelled,
        );
      }
      for (const id of this.#missingSince.keys())
        if (!open.has(id) || this.#hooks.isLocal(id)) this.#missingSince.delete(id);
      // Ended while a message about it was lost.
      for (const id of [...this.#remote.keys()]) if (!open.has(id)) await this.#finished(id);
      // A pending approval of a run that has ended is left over (its replica died before committing the
      // cancellation): never listed. One of a run younger than this sweep's read is kept.
      const live = pending.filter((a) => open.has(a.runId) || this.#now() - a.updatedAt < this.#leaseMs);
      this.#hooks.syncApprovals(live.map((a) => a.request as ApprovalRequest));
      // A cancel whose message was lost: its flag is still there.
      for (const runId of this.#hooks.localRunning())
        if (await this.#cluster.isClaimed(cancelKey(runId)))
          this.#hooks.cancelLocal(runId, 'cancelled on another replica');
    } catch (err) {
      // A lease missing before and after a gap in what this replica saw was not seen missing throughout.
      this.#missingSince.clear();
      this.#logger.warn('replicas: the run sweep failed', { error: String(err) });
    }
  }

  /**
   * True when the replica holding the run is gone: it released the lease (it stopped), or the lease has
   * been missing for a whole lease as this replica saw it (a live holder renews every third of a lease,
   * taking a missing key again), which costs a dead replica's runs one lease more before they move.
   */
  async #holderGone(runId: string): Promise<boolean> {
    const state = await this.#cluster.leaseState(runLeaseKey(runId));
    if (state !== 'missing') {
      this.#missingSince.delete(runId);
      return state === 'released';
    }
    const since = this.#missingSince.get(runId);
    if (since === undefined) this.#missingSince.set(runId, this.#now());
    return since !== undefined && this.#now() - since >= this.#leaseMs;
  }

  #onMessage(message: RunsMessage): void {
    if (message.type === 'started') {
      if (message.replicaId === this.#cluster.replicaId || this.#hooks.isLocal(message.id)) return;
      this.#follow(message);
    } else if (message.type === 'finished') {
      if (this.#remote.has(message.id)) void this.#finished(message.id);
    } else if (message.type === 'cancel') {
      this.#hooks.cancelLocal(message.id, message.reason);
    }
  }

  /** Follows a run another replica executes, from what a message or this replica knows of it. */
  #follow(run: RunIds): void {
    if (this.#remote.has(run.id)) return;
    const { id, callerId, threadId } = run;
    const stub: StoredRun = { id, callerId, threadId, status: 'running', request: {}, createdAt: 0, updatedAt: 0 };
    this.#remote.set(id, followedRunHandle(stub, this.#store, this.#cluster, this.#approvals));
  }

  /**
   * This replica could not renew a run's lease in time and another replica holds it now: the run stops
   * here as it is, and is followed from the store, so this replica's clients read on to its end there
   * (moved-run.ts) and a reconnecting one is served it as any run executing elsewhere.
   */
  #lost(runId: string): void {
    const run = this.#local.get(runId);
    if (run) this.#follow(run);
    this.#hooks.suspendLocal(runId, 'the run lease was lost: another replica goes on with the run');
  }

  async #finished(runId: string): Promise<void> {
    const followed = this.#remote.get(runId);
    // Store unreachable: the followed run is ended below without its stored ending; the run is still in the store.
    const stored = await this.#store.runs.get(runId).catch(() => undefined);
    if (this.#remote.get(runId) !== followed) return;
    this.#remote.delete(runId);
    if (stored?.ending) followed?.ended(stored.ending as RunEnding);
    if (stored && stored.status !== 'running') this.#hooks.retainFinished(stored);
  }

  #tell(message: RunsMessage): void {
    this.#cluster.publish(RUNS_CHANNEL, message).catch((err: unknown) => {
      this.#logger.warn('replicas: telling the other replicas failed', { error: String(err) });
    });
  }

  close(): void {
    this.#unsubscribe?.();
    if (this.#timer) clearInterval(this.#timer);
    this.#leases.close();
    for (const followed of this.#remote.values()) followed.stop();
    this.#remote.clear();
    this.#local.clear();
    this.#missingSince.clear();
  }
}
