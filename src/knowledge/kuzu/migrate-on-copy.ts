/**
 * Opens a Kuzu database file at the current schema version, migrating an older one on a copy: the copy is
 * migrated, checkpointed and renamed over the original, so a migration that fails leaves the original as it
 * was. Why not in place: each migration runs in one transaction, and its rollback does restore the old
 * tables in the session, but after a rolled-back DDL transaction the pinned Kuzu sometimes (about one close
 * in three or four on a loaded machine) leaves a file on which every later open segfaults
 * (kuzu-file.test.ts). The original stays open while its copy migrates, so Kuzu's lock keeps a second
 * Parley off it; the database is checkpointed first, so the file alone holds it (no `.wal` beside it).
 */
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { KuzuSession, type SessionOptions } from './session.ts';
import { migrate, needsMigration } from './schema.ts';

export async function openMigrated(
  path: string,
  options: SessionOptions = {},
  migrateSession: (session: KuzuSession) => Promise<void> = migrate,
): Promise<KuzuSession> {
  const session = await KuzuSession.open(path, options);
  try {
    if (path === ':memory:' || !(await needsMigration(session))) {
      await migrateSession(session); // a new database's schema, or the error of a newer one
      return session;
    }
    await session.query('CHECKPOINT');
    const copy = `${path}.migrating`;
    removeDatabase(copy); // what a crash half-way through an earlier attempt left
    copyFileSync(path, copy);
    try {
      const migrating = await KuzuSession.open(copy, options);
      try {
        await migrateSession(migrating);
        await migrating.query('CHECKPOINT');
      } finally {
        await migrating.close();
      }
    } catch (err) {
      removeDatabase(copy);
      throw err;
    }
    await session.close();
    renameSync(copy, path);
  } catch (err) {
    await session.close();
    throw err;
  }
  return KuzuSession.open(path, options);
}

function removeDatabase(path: string): void {
  for (const file of [path, `${path}.wal`]) rmSync(file, { force: true });
}
