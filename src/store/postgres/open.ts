/**
 * The database of a configuration: with PARLEY_DATABASE_URL, a pool on it, migrated before anything is
 * served; undefined without it (the data dir's embedded store serves). A database that cannot be
 * reached or migrated stops start-up with one line naming the setting (password hidden).
 */
import type { Pool } from 'pg';
import { ConfigError } from '../../config-error.ts';
import type { Logger } from '../../log.ts';
import { migrate } from './migrate.ts';
import { openPool, redactUrl } from './pool.ts';

export async function openDatabase(databaseUrl: string | undefined, logger: Logger): Promise<Pool | undefined> {
  if (!databaseUrl) return undefined;
  const pool = await openPool({ url: databaseUrl, logger });
  try {
    const applied = await migrate(pool);
    logger.info(
      `store: Postgres at ${redactUrl(databaseUrl)} (runs, checkpoints, events, approvals, threads, ACP sessions, MCP stream events, A2A tasks and push)${applied.length ? `; applied migrations ${applied.join(', ')}` : ''}`,
    );
    return pool;
  } catch (err) {
    // The error thrown below is the one to report; ending a pool that never connected may fail too.
    await pool.end().catch(() => undefined);
    throw new ConfigError(
      `PARLEY_DATABASE_URL (${redactUrl(databaseUrl)}): cannot use the database: ${(err as Error).message}`,
    );
  }
}
