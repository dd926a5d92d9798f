/**
 * An engine joining the other replicas (docs/deployment.md, "Replicas"): with a shared cluster and run
 * store, its caller ledger is shared and its runs are leased, followed and taken over through
 * ReplicaRuns, which calls back into the engine through these hooks. Without them, nothing.
 */
import type { EngineContext } from '../run/state.ts';
import { ReplicaRuns, type ReplicaEngineHooks } from './replica-runs.ts';
import { shareLedger } from './shared-ledger.ts';

export interface Replicas {
  runs: ReplicaRuns;
  /** Stops sharing the ledger (the runs are closed by ReplicaRuns.close). */
  unshareLedger(): void;
}

export function joinReplicas(
  ctx: EngineContext,
  hooks: Omit<ReplicaEngineHooks, 'syncApprovals'>,
): Replicas | undefined {
  const { cluster, runStore, logger, now, config } = ctx;
  if (!cluster?.shared || !runStore) return undefined;
  const unshareLedger = shareLedger(ctx.ledger, cluster, logger);
  const runs = new ReplicaRuns({
    cluster,
    store: runStore,
    leaseMs: config.cluster.leaseMs,
    logger,
    now,
    approvals: ctx.approvals,
    hooks: { ...hooks, syncApprovals: (pending) => ctx.approvals.syncRemote?.(pending) },
  });
  return { runs, unshareLedger };
}
