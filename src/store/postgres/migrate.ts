/**
 * Applies the migrations (migrations.ts) a database lacks, in order, each in its own transaction, under
 * an advisory lock held for the whole migration: replicas starting at once take turns, and the later
 * ones find the work done. `parley_migrations` records what was applied. A database migrated by a newer Parley (a
 * version this code does not know) stops start-up with a message saying so, rather than running old
 * code against a schema it does not understand.
 */
import type { Pool } from 'pg';
import { MIGRATIONS, type Migration } from './migrations.ts';
import { checkOut } from './checkout.ts';

/** Any fixed number: the lock every Parley process takes while it migrates. */
const MIGRATION_LOCK = 7_301_995;

export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  const { client, release } = await checkOut(pool);
  try {
    // Held for the whole migration (released below, or with the connection): even CREATE TABLE IF NOT
    // EXISTS races when two processes run it at once.
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS parley_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM parley_migrations');
      const known = Math.max(0, ...migrations.map((m) => m.version));
      const newest = Math.max(0, ...rows.map((r) => r.version));
      if (newest > known) {
        throw new Error(
          `the database was migrated by a newer Parley (schema version ${newest}; this one knows up to ${known}): upgrade Parley, or point PARLEY_DATABASE_URL at another database`,
        );
      }
      const done = new Set(rows.map((r) => r.version));
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO parley_migrations (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
        applied.push(migration.version);
      }
    } finally {
      // An advisory lock ends with its session: releasing the connection frees it anyway.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    release();
  }
  return applied;
}
