/**
 * The Cluster port (docs/deployment.md, "Replicas"): what Parley processes sharing one Postgres need
 * from each other while they run. Durable state is the run store's (Postgres); this is the live part:
 *   publish/subscribe  approval decisions, cancellations, "run R has new events", runs starting and ending
 *   claim              once-only decisions (the first answer to an approval wins on every replica)
 *   leases             which replica executes a run; a released lease lets a live replica take the run over at
 *                      once, a missing one only once it has stayed missing a whole lease (replica-runs.ts)
 *   values             notes with an expiry any replica reads (where an ACP connection lives)
 *
 * One process uses the in-process implementation (local.ts); PARLEY_REDIS_URL selects Redis (redis.ts).
 * Messages are plain JSON data. Delivery is at most once (Redis pub/sub): every user of it also reads the
 * durable state, so a lost message costs latency, never correctness.
 */
export type ClusterListener = (message: unknown) => void;

/**
 * What a lease key says: a replica holds it; its holder let it go (`releaseLease`); or there is no key —
 * it expired, or Redis lost it (restarted empty, evicted it), which says nothing about its holder.
 */
export type LeaseState = 'held' | 'released' | 'missing';

export interface Cluster {
  /** This process's id in the cluster (unique per start). */
  readonly replicaId: string;
  /** True when other processes may share the state (Redis); false for the in-process implementation. */
  readonly shared: boolean;
  publish(channel: string, message: unknown): Promise<void>;
  /** Calls `listener` for every message on `channel` (this process's own included); returns the unsubscribe. */
  subscribe(channel: string, listener: ClusterListener): () => void;
  /** True for the first caller of `key` within `ttlMs` (SET NX): a decision only one replica may make. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** True while a claim on `key` holds (a flag another replica set). */
  isClaimed(key: string): Promise<boolean>;
  /** Takes the lease on `key` for this replica if it is free or already ours; true when held. */
  acquireLease(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Extends the leases this replica holds (taking a free one again: Redis may have restarted empty);
   * returns the keys another replica holds now.
   */
  renewLeases(keys: readonly string[], ttlMs: number): Promise<string[]>;
  /**
   * Frees a lease this replica holds (no-op otherwise). The key stays, marked released, until the lease
   * would have expired: any replica may take it at once, and knows it was let go, not lost.
   */
  releaseLease(key: string): Promise<void>;
  /** Whether `key` is held, released, or missing (a replica taking runs over reads it: replica-runs.ts). */
  leaseState(key: string): Promise<LeaseState>;
  /** Stores `value` under `key` for `ttlMs`, replacing what was there. */
  setValue(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`; undefined when there is none or it expired. */
  getValue(key: string): Promise<string | undefined>;
  deleteValue(key: string): Promise<void>;
  /** For GET /ready: true, or why not. */
  ready(): boolean | string;
  close(): Promise<void>;
}
