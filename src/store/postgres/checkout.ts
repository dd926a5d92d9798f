/** One connection taken from the pool for several queries, safe against the server ending it in between. */
import type { Pool, PoolClient } from 'pg';

export interface CheckedOut {
  client: PoolClient;
  /** Back to the pool; a connection that failed meanwhile is destroyed instead of reused. */
  release(): void;
}

/**
 * A connection the server ends while it is checked out but idle between two queries (a restart, an
 * administrator's terminate) emits 'error' on the client, and an 'error' without a listener ends the
 * process (seen: a replica killed by `pg_ctl restart -m fast` under load). Listened to here, the next
 * query fails instead, the caller's retry takes another connection, and this one is discarded.
 */
export async function checkOut(pool: Pool): Promise<CheckedOut> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  return {
    client,
    release: () => {
      client.off('error', onError);
      client.release(broken);
    },
  };
}
