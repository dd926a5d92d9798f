/** Runs `work` in one transaction on one connection of the pool: committed, or rolled back on any error. */
import type { Pool, PoolClient } from 'pg';
import { checkOut } from './checkout.ts';

export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // The connection may be broken: the original error is rethrown, and the pool discards a broken client.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    release();
  }
}
