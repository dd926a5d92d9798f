/**
 * The run store for a configuration: Postgres when PARLEY_DATABASE_URL is set (pool opened, schema
 * migrated before anything is served), the data dir's LMDB environment otherwise. A database that
 * cannot be reached or migrated stops start-up with one line naming the setting (password hidden).
 */
import { ConfigError } from '../../config-error.ts';
import type { Logger } from '../../log.ts';
import type { Kv } from '../kv.ts';
import { openLmdbRunStore } from '../runs/lmdb/lmdb-run-store.ts';
import type { RunStore } from '../runs/run-store.ts';
import { migrate } from './migrate.ts';
import { openPool, redactUrl } from './pool.ts';
import { openPostgresRunStore } from './run-store.ts';

export async function openRunStore(kv: Kv, databaseUrl: string | undefined, logger: Logger): Promise<RunStore> {
  if (!databaseUrl) return openLmdbRunStore(kv, { closeKv: false });
  const pool = await openPool({ url: databaseUrl, logger });
  try {
    const applied = await migrate(pool);
    logger.info(
      `run store: Postgres at ${redactUrl(databaseUrl)}${applied.length ? ` (applied migrations ${applied.join(', ')})` : ''}`,
    );
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new ConfigError(
      `PARLEY_DATABASE_URL (${redactUrl(databaseUrl)}): cannot use the database: ${(err as Error).message}`,
    );
  }
  return openPostgresRunStore(pool);
}
