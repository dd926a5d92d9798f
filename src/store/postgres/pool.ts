/**
 * The Postgres connection pool of the store (node-postgres). PARLEY_DATABASE_URL names the database;
 * an optional schema (tests give each suite its own) is created if missing and put first on every
 * connection's search path. Errors of idle connections (the server restarting) are logged, not thrown:
 * the pool replaces the connection, and the next query fails or succeeds on its own.
 */
import pg from 'pg';
import type { Logger } from '../../log.ts';

export interface PostgresOptions {
  url: string;
  schema?: string;
  /** Connections at most (default 10). */
  max?: number;
  /** How long getting a connection may take before the query fails (default 5 s). */
  connectTimeoutMs?: number;
  logger?: Logger;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL with its password hidden, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export async function openPool(options: PostgresOptions): Promise<pg.Pool> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema))
    throw new Error(`invalid Postgres schema name "${options.schema}"`);
  if (options.schema) {
    const admin = new pg.Client({ connectionString: options.url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    } catch (err) {
      // Two pools creating the same schema at once: one wins, the other's IF NOT EXISTS races (23505).
      if ((err as { code?: string }).code !== '23505') throw err;
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    // A database that does not answer fails a query within seconds (retried above, or a 503), never hangs it.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  pool.on('error', (err) => options.logger?.warn('postgres: an idle connection failed', { error: err.message }));
  // pg-pool listens for a connection's 'error' only while it sits idle or runs pool.query; a connection
  // the server ends in any other moment (seen: `pg_ctl restart -m fast` under load, a FATAL 57P01 on a
  // connection between pg-pool's hands) emits 'error' with no listener, which ends the process. This
  // listener is always there; the pool still discards the connection, and its next query fails and is retried.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
