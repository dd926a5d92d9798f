/**
 * Kuzu schema and migrations. Kuzu needs declared tables with one label each; lists and objects
 * are stored as JSON in STRING columns (Kuzu has no `SET n += map`, and empty typed lists bind as
 * null). The applied version is the comment of the Source table (`parley schema 4`); versions 1-3 kept it
 * in a Meta node table, which version 4 drops: Kuzu holds ~5.7 MB of native memory per node table
 * however empty (its primary-key index's 256 sub-indexes), the price of one row (docs/performance.md).
 */
import { SchemaVersionError } from '../errors.ts';
import type { KuzuSession } from './session.ts';

export const SCHEMA_VERSION = 4;

/** A migration step: a DDL statement, or a function for a step that depends on what the database holds. */
type MigrationStep = string | ((session: KuzuSession) => Promise<void>);

/** Steps per version; version n's list brings a version n-1 database to n. */
const MIGRATIONS: Record<number, MigrationStep[]> = {
  1: [
    'CREATE NODE TABLE IF NOT EXISTS Source(id STRING, kind STRING, location STRING, contentHash STRING, ingestedAt STRING, status STRING, error STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Specialist(id STRING, name STRING, description STRING, kind STRING, domains STRING, prompt STRING, endpoint STRING, modelRole STRING, tools STRING, sourceId STRING, available BOOLEAN, unavailableReason STRING, searchText STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Tool(id STRING, server STRING, name STRING, description STRING, inputSchema STRING, annotations STRING, available BOOLEAN, sourceId STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Run(id STRING, threadId STRING, query STRING, protocol STRING, callerId STRING, startedAt STRING, durationMs DOUBLE, status STRING, answer STRING, error STRING, tokens DOUBLE, costUsd DOUBLE, score DOUBLE, plan STRING, teamConfigId STRING, searchText STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Step(id STRING, runId STRING, stepId STRING, idx INT64, specialist STRING, objective STRING, status STRING, output STRING, error STRING, durationMs DOUBLE, tokens DOUBLE, costUsd DOUBLE, toolCalls STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS TeamConfig(id STRING, pattern STRING, specialists STRING, plan STRING, uses INT64, successes INT64, avgScore DOUBLE, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Proficiency(id STRING, subject STRING, kind STRING, runs INT64, successes INT64, meanScore DOUBLE, meanLatencyMs DOUBLE, meanCostUsd DOUBLE, costRuns INT64, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Approval(id STRING, runId STRING, kind STRING, request STRING, requestedAt STRING, decision STRING, resolvedBy STRING, actor STRING, resolvedAt STRING, PRIMARY KEY(id))',
    'CREATE NODE TABLE IF NOT EXISTS Decision(id STRING, runId STRING, question STRING, verdict STRING, decidedAt STRING, PRIMARY KEY(id))',
    'CREATE REL TABLE IF NOT EXISTS INGESTED_FROM(FROM Specialist TO Source, FROM Tool TO Source)',
    'CREATE REL TABLE IF NOT EXISTS USES(FROM Specialist TO Tool)',
    'CREATE REL TABLE IF NOT EXISTS HAS_STEP(FROM Run TO Step)',
    'CREATE REL TABLE IF NOT EXISTS BY(FROM Step TO Specialist)',
    'CREATE REL TABLE IF NOT EXISTS CALLED(FROM Step TO Tool, status STRING)',
    'CREATE REL TABLE IF NOT EXISTS REUSED(FROM Run TO TeamConfig)',
    'CREATE REL TABLE IF NOT EXISTS HAS_APPROVAL(FROM Run TO Approval)',
    'CREATE REL TABLE IF NOT EXISTS DECIDED(FROM Run TO Decision)',
  ],
  // Caller isolation: teams and council decisions belong to a caller. Records written before have
  // no owner (''), so no caller reuses an old team or sees an old decision as its own.
  2: [
    "ALTER TABLE TeamConfig ADD IF NOT EXISTS callerId STRING DEFAULT ''",
    "ALTER TABLE Decision ADD IF NOT EXISTS callerId STRING DEFAULT ''",
  ],
  // Versions 1-2 created full-text indexes on Specialist and Run that nothing queries (retrieval and
  // memory search run in memory, knowledge/view.ts). Kuzu loads them at every open: +30 MB resident
  // and ~0.6 s per start, and ~75 MB more while creating them (docs/performance.md, Startup).
  3: [dropFullTextIndexes],
  // The version moves from the Meta table to the Source table's comment, and Meta goes (see the top).
  4: [dropMetaTable],
};

/** The last version kept in the Meta table; later ones are the Source table's comment. */
const LAST_META_VERSION = 3;
const VERSION_COMMENT = /^parley schema (\d+)$/;

async function dropFullTextIndexes(session: KuzuSession): Promise<void> {
  const indexes = await session.ddl(
    "CALL SHOW_INDEXES() WHERE index_type = 'FTS' RETURN table_name AS t, index_name AS i",
  );
  for (const { t, i } of indexes) await session.ddl(`CALL DROP_FTS_INDEX('${String(t)}', '${String(i)}')`);
}

/** Writes the comment first: a crash before the DROP leaves Meta (version 3), and this step runs again. */
async function dropMetaTable(session: KuzuSession): Promise<void> {
  await writeVersion(session, 4);
  await session.ddl('DROP TABLE IF EXISTS Meta');
}

/**
 * The applied version: Meta's row while there is one (versions 1-3), else Source's comment, else 0 (new;
 * an empty Meta is what a version 1-3 Parley left when it stopped while creating the schema).
 */
async function readVersion(session: KuzuSession): Promise<number> {
  const tables = new Map(
    (await session.ddl('CALL SHOW_TABLES() RETURN name, comment')).map((t) => [
      String(t.name),
      String(t.comment ?? ''),
    ]),
  );
  if (tables.has('Meta')) {
    const rows = await session.run("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v");
    if (rows[0]) return Number(rows[0].v);
  }
  const comment = VERSION_COMMENT.exec(tables.get('Source') ?? '');
  return comment ? Number(comment[1]) : 0;
}

async function writeVersion(session: KuzuSession, version: number): Promise<void> {
  if (version > LAST_META_VERSION) {
    await session.ddl(`COMMENT ON TABLE Source IS 'parley schema ${version}'`);
    return;
  }
  await session.ddl('CREATE NODE TABLE IF NOT EXISTS Meta(key STRING, value STRING, PRIMARY KEY(key))');
  await session.run("MERGE (m:Meta {key: 'schemaVersion'}) SET m.value = $v", { v: String(version) });
}

/**
 * Creates or migrates the schema (to `target`, default the current version: tests build older
 * databases with a lower one); refuses a database newer than this code.
 */
export async function migrate(session: KuzuSession, target = SCHEMA_VERSION): Promise<void> {
  await session.exclusive(async () => {
    const current = await readVersion(session);
    if (current > SCHEMA_VERSION) {
      throw new SchemaVersionError(
        `The knowledge database has schema version ${current}, newer than this Parley understands (${SCHEMA_VERSION}). Upgrade Parley or use another PARLEY_DATA_DIR.`,
      );
    }
    const last = Math.min(target, SCHEMA_VERSION);
    if (current === 0 && last > 0) return createFresh(session, last);
    for (let v = current + 1; v <= last; v++) {
      for (const step of MIGRATIONS[v] ?? []) await (typeof step === 'string' ? session.ddl(step) : step(session));
      await writeVersion(session, v);
    }
  });
}

/**
 * A new database gets every version's DDL in one write transaction, and the version at once: one
 * commit instead of one per table (a cold start on a fresh data dir: docs/performance.md). The
 * function steps are skipped: they transform what an older database holds, and a new one holds nothing.
 */
async function createFresh(session: KuzuSession, version: number): Promise<void> {
  await session.ddl('BEGIN TRANSACTION');
  try {
    for (let v = 1; v <= version; v++)
      for (const step of MIGRATIONS[v] ?? []) if (typeof step === 'string') await session.ddl(step);
    if (version > LAST_META_VERSION) await session.ddl('DROP TABLE IF EXISTS Meta');
    await writeVersion(session, version);
    await session.ddl('COMMIT');
  } catch (err) {
    await session.ddl('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
