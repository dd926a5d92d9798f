/**
 * The caller ledger shared by replicas: every run start and settled charge one replica's ledger sees is
 * told to the others (channel "ledger"), which count it as their own. So a caller's rate limit and
 * budgets hold across replicas, overshot at most by the calls in flight on each replica (their
 * reservations stay local). A replica that starts mid-window knows the spend it hears from then on
 * plus its own ledger file.
 */
import type { Cluster } from '../../cluster/types.ts';
import type { Logger } from '../../log.ts';
import type { CallerLedger, LedgerDelta } from '../spending/ledger.ts';

const CHANNEL = 'ledger';

export function shareLedger(ledger: CallerLedger, cluster: Cluster, logger: Logger): () => void {
  const replica = cluster.replicaId;
  ledger.share = (delta) => {
    cluster.publish(CHANNEL, { replica, delta }).catch((err: unknown) => {
      logger.warn('replicas: sharing a ledger entry failed', { error: String(err) });
    });
  };
  const off = cluster.subscribe(CHANNEL, (message) => {
    const m = message as { replica: string; delta: LedgerDelta };
    if (m.replica !== replica) ledger.apply(m.delta);
  });
  return () => {
    off();
    ledger.share = undefined;
  };
}
