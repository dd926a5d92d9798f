/**
 * Approvals between replicas (docs/deployment.md, "Replicas"): each replica lists and answers the
 * requests waiting on the others, and the first answer on any replica wins. Replicas tell each other
 * through the cluster (channel "approvals") what waits where, what was settled, and which decision the
 * replica holding a run should act on; a claim in Redis makes one answer (or one timeout) the only one.
 * The broker (approvals.ts) keeps the futures; this relay keeps what the other replicas hold.
 */
import type { Cluster } from '../cluster/types.ts';
import { LOCAL_CALLER } from '../identity/caller.ts';
import type { Logger } from '../log.ts';
import { unavailableOf } from '../unavailable.ts';
import type { ApprovalDurability } from './durable.ts';
import type { ApprovalOutcome, ApprovalRequest } from './types.ts';

/** What replicas tell each other about approvals (channel "approvals"). */
type ApprovalMessage =
  | { type: 'pending'; request: ApprovalRequest }
  | { type: 'settled'; id: string; callerId: string; outcome: ApprovalOutcome }
  | { type: 'decide'; id: string; outcome: ApprovalOutcome };

const CHANNEL = 'approvals';
/** How long a claim on an answer blocks a second one: longer than any request waits in practice. */
const CLAIM_MS = 7 * 24 * 3_600_000;

/** What the relay asks of the broker it serves. */
export interface RelayHost {
  /** Whether `id` waits in this process (committed or not). */
  holds(id: string): boolean;
  /** This process's committed requests: their ids and a token that is the same while the request waits. */
  committed(): Iterable<[id: string, token: unknown]>;
  /** Acts on a decision stored by another replica, if `id` still waits here (as `token`, when given). */
  applyStored(id: string, outcome: ApprovalOutcome, token?: unknown): void;
  /** Remembers a settled id, so a late answer reads "already resolved". */
  remember(id: string, outcome: ApprovalOutcome, callerId: string): void;
  /** Who owned a settled id, if remembered. */
  settledOwner(id: string): string | undefined;
}

export class ApprovalRelay {
  /** Requests waiting on other replicas, listed and answerable here. */
  readonly remote = new Map<string, ApprovalRequest>();
  readonly #cluster: Cluster;
  readonly #host: RelayHost;
  readonly #durable: ApprovalDurability | undefined;
  readonly #logger: Logger;
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(cluster: Cluster, host: RelayHost, durable: ApprovalDurability | undefined, logger: Logger) {
    this.#cluster = cluster;
    this.#host = host;
    this.#durable = durable;
    this.#logger = logger;
    this.#unsubscribe = cluster.subscribe(CHANNEL, (m) => this.#onMessage(m as ApprovalMessage));
  }

  #onMessage(message: ApprovalMessage): void {
    if (message.type === 'pending') {
      if (!this.#host.holds(message.request.id)) this.remote.set(message.request.id, message.request);
    } else if (message.type === 'settled') {
      if (this.remote.delete(message.id)) this.#host.remember(message.id, message.outcome, message.callerId);
    } else if (message.type === 'decide') {
      // Claimed and stored by the replica that took the answer: this one, holding the run, acts on it.
      this.#host.applyStored(message.id, message.outcome);
    }
  }

  #tell(message: ApprovalMessage): void {
    this.#cluster.publish(CHANNEL, message).catch((err: unknown) => {
      this.#logger.warn('approvals: telling the other replicas failed', { error: String(err) });
    });
  }

  /** A request now waits here (new and committed, or restored on a replica that took the run over). */
  pending(request: ApprovalRequest): void {
    this.#tell({ type: 'pending', request });
  }

  settled(id: string, callerId: string, outcome: ApprovalOutcome): void {
    this.#tell({ type: 'settled', id, callerId, outcome });
  }

  /**
   * An answer taken here for a request another replica holds: committed first (a replica taking the
   * run over after that one's death finds it), then the holder is told to act on it.
   */
  async decideRemote(request: ApprovalRequest, ownerId: string, outcome: ApprovalOutcome): Promise<void> {
    await this.#durable?.decideFor(request.id, outcome);
    this.remote.delete(request.id);
    this.#host.remember(request.id, outcome, ownerId);
    this.#tell({ type: 'decide', id: request.id, outcome });
    this.#tell({ type: 'settled', id: request.id, callerId: ownerId, outcome });
  }

  /**
   * The pending requests of the shared store, so a message lost on the way never hides one for long
   * (the engine calls this on start and on every sweep). Those of other replicas are listed here; one of
   * this replica's that the store no longer has pending was answered elsewhere and its answer did not
   * arrive: it is read from the store and applied.
   */
  sync(pending: ApprovalRequest[]): void {
    const stillPending = new Set(pending.map((r) => r.id));
    this.remote.clear();
    // The list was read before this call: a request settled since (its message came meanwhile) is not back.
    for (const request of pending)
      if (!this.#host.holds(request.id) && this.#host.settledOwner(request.id) === undefined)
        this.remote.set(request.id, request);
    for (const [id, token] of this.#host.committed()) {
      if (stillPending.has(id)) continue;
      void this.#durable?.decided(id).then(
        (outcome) => {
          if (outcome?.decision) this.#host.applyStored(id, outcome, token);
        },
        () => undefined,
      );
    }
  }

  /**
   * The claim that makes the first answer win on every replica. Redis out of reach (issue 31): a run
   * held here is decided here (no other replica can answer meanwhile: each needs the claim, or finds the
   * decision in Postgres), and the claim and the news follow once Redis is back; a run held elsewhere
   * cannot be, and the UnavailableError becomes a 503.
   */
  async claimOrDecideHere(id: string, outcome: ApprovalOutcome, heldHere: boolean): Promise<boolean> {
    try {
      return await this.#cluster.claim(`approval:${id}`, CLAIM_MS);
    } catch (err) {
      if (!heldHere || !unavailableOf(err)) throw err;
      this.#logger.warn('approvals: Redis is unavailable; deciding a run held here locally', { id });
      void this.#claimWhenBack(id, outcome);
      return true;
    }
  }

  /** After a local decision during a Redis outage: takes the claim and tells the others, once Redis answers. */
  async #claimWhenBack(id: string, outcome: ApprovalOutcome): Promise<void> {
    for (let wait = 500; !this.#closed; wait = Math.min(wait * 2, 5_000)) {
      await new Promise((r) => setTimeout(r, wait).unref());
      try {
        await this.#cluster.claim(`approval:${id}`, CLAIM_MS);
        this.settled(id, this.#host.settledOwner(id) ?? LOCAL_CALLER.id, outcome);
        return;
      } catch (err) {
        if (!unavailableOf(err)) {
          this.#logger.warn('approvals: claiming a decision made during a Redis outage failed', {
            id,
            error: String(err),
          });
          return;
        }
      }
    }
  }

  /** A timeout's default applies only if no human's answer on another replica claimed the request first. */
  settleOnce(id: string, apply: () => void): void {
    this.#cluster.claim(`approval:${id}`, CLAIM_MS).then(
      (won) => won && apply(),
      // Redis unreachable: the run must not wait forever on a timeout that never applies.
      () => apply(),
    );
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
  }
}
