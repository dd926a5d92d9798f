/**
 * The leases this replica holds on the runs it executes (docs/deployment.md, "Replicas"): taken when a
 * run starts or is taken over, renewed together every third of the lease, freed when the run ends. A
 * lease that could not be renewed in time may already be another replica's: `onLost` stops the run here.
 */
import type { Cluster } from '../../cluster/types.ts';
import type { Logger } from '../../log.ts';
import { runLeaseKey } from './channels.ts';

export class RunLeases {
  readonly #held = new Set<string>();
  readonly #cluster: Cluster;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  readonly #onLost: (runId: string) => void;
  #timer?: ReturnType<typeof setInterval>;

  constructor(cluster: Cluster, ttlMs: number, logger: Logger, onLost: (runId: string) => void) {
    this.#cluster = cluster;
    this.#ttlMs = ttlMs;
    this.#logger = logger;
    this.#onLost = onLost;
  }

  /** Takes the lease (true when this replica now holds it) and keeps renewing it. */
  async acquire(runId: string): Promise<boolean> {
    if (!(await this.#cluster.acquireLease(runLeaseKey(runId), this.#ttlMs))) return false;
    this.#held.add(runId);
    this.#timer ??= setInterval(() => void this.#renew(), Math.max(200, Math.floor(this.#ttlMs / 3)));
    this.#timer.unref();
    return true;
  }

  release(runId: string): void {
    if (!this.#held.delete(runId)) return;
    this.#cluster.releaseLease(runLeaseKey(runId)).catch((err: unknown) => {
      this.#logger.warn('replicas: releasing a run lease failed (it expires on its own)', {
        runId,
        error: String(err),
      });
    });
    if (this.#held.size === 0) this.close();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #renew(): Promise<void> {
    const ids = [...this.#held];
    try {
      const lost = await this.#cluster.renewLeases(ids.map(runLeaseKey), this.#ttlMs);
      for (const key of lost) {
        const runId = ids.find((id) => runLeaseKey(id) === key);
        if (!runId || !this.#held.delete(runId)) continue;
        this.#logger.error('replicas: lost the lease of a run; another replica may have taken it over', { runId });
        this.#onLost(runId);
      }
    } catch (err) {
      // Redis away: keep running; if it stays away past the lease, the run may be taken over elsewhere.
      this.#logger.warn('replicas: renewing run leases failed', { runs: ids.length, error: String(err) });
    }
  }
}
