/**
 * Kuzu schema and migrations. Kuzu needs declared tables with one label each; lists and objects
 * are stored as JSON in STRING columns (Kuzu has no `SET n += map`, and empty typed lists bind as
 * null). The applied version is a table's comment (`parley schema 5`): Specialist's from version 5,
 * Source's in version 4; versions 1-3 kept it in a Meta node table, which version 4 drops. Kuzu holds
 * ~5.6 MB of native memory per node table however empty (its primary-key index's 256 sub-indexes:
 * docs/performance.md), so version 5 keeps five node tables where there were nine: the registry is
 * one table, Specialist (specialists, and rows of kind 'tool' and 'source'), proven teams are
 * Proficiency rows (kind 'team'), approvals are Decision rows (kind 'tool' or 'elicitation', beside
 * the council's 'council'); docs/knowledge.md, Schema. Version 6 gives Run a forkedFrom column (a
 * fork's origin, JSON).
 */
import { SchemaVersionError } from '../errors.ts';
import type { KuzuSession } from './session.ts';

export const SCHEMA_VERSION = 6;

/** What a new database gets: the current version's tables, created in one transaction (createFresh). */
const CURRENT: string[] = [
  // kind 'prompt' | 'mcp' | 'a2a' (a specialist), 'tool' (an MCP tool: server, inputSchema, annotations)
  // or 'source' (where both came from: sourceKind … error). Ids cannot collide: a source's has a ':'
  // before any '/', a tool's a '/' before any ':' (MCP server names have neither), a specialist's neither.
  'CREATE NODE TABLE Specialist(id STRING, name STRING, description STRING, kind STRING, domains STRING, prompt STRING, endpoint STRING, modelRole STRING, tools STRING, sourceId STRING, available BOOLEAN, unavailableReason STRING, searchText STRING, server STRING, inputSchema STRING, annotations STRING, sourceKind STRING, location STRING, contentHash STRING, ingestedAt STRING, status STRING, error STRING, PRIMARY KEY(id))',
  // forkedFrom: a fork's { runId, checkpoint } as JSON (null for every other run).
  'CREATE NODE TABLE Run(id STRING, threadId STRING, query STRING, protocol STRING, callerId STRING, startedAt STRING, durationMs DOUBLE, status STRING, answer STRING, error STRING, tokens DOUBLE, costUsd DOUBLE, score DOUBLE, plan STRING, teamConfigId STRING, searchText STRING, forkedFrom STRING, PRIMARY KEY(id))',
  'CREATE NODE TABLE Step(id STRING, runId STRING, stepId STRING, idx INT64, specialist STRING, objective STRING, status STRING, output STRING, error STRING, durationMs DOUBLE, tokens DOUBLE, costUsd DOUBLE, toolCalls STRING, PRIMARY KEY(id))',
  // kind 'specialist' | 'domain' (runs … costRuns) or 'team' (callerId … avgScore, and successes).
  "CREATE NODE TABLE Proficiency(id STRING, subject STRING, kind STRING, runs INT64, successes INT64, meanScore DOUBLE, meanLatencyMs DOUBLE, meanCostUsd DOUBLE, costRuns INT64, callerId STRING DEFAULT '', pattern STRING, specialists STRING, plan STRING, uses INT64, avgScore DOUBLE, PRIMARY KEY(id))",
  // kind 'council' (callerId … decidedAt) or 'tool' | 'elicitation' (a human's answer: request … resolvedAt).
  "CREATE NODE TABLE Decision(id STRING, runId STRING, kind STRING, callerId STRING DEFAULT '', question STRING, verdict STRING, decidedAt STRING, request STRING, requestedAt STRING, decision STRING, resolvedBy STRING, actor STRING, resolvedAt STRING, PRIMARY KEY(id))",
  'CREATE REL TABLE INGESTED_FROM(FROM Specialist TO Specialist)',
  'CREATE REL TABLE USES(FROM Specialist TO Specialist)',
  'CREATE REL TABLE HAS_STEP(FROM Run TO Step)',
  'CREATE REL TABLE BY(FROM Step TO Specialist)',
  'CREATE REL TABLE CALLED(FROM Step TO Specialist, status STRING)',
  'CREATE REL TABLE REUSED(FROM Run TO Proficiency)',
  'CREATE REL TABLE DECIDED(FROM Run TO Decision)',
];

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
  // Nine node tables become five (see the top): all in one transaction with the version (mergeTables).
  5: [mergeTables],
  // A fork's run record names its parent (docs/time-travel.md); runs recorded before have none (null).
  6: [addForkOrigin],
};

/**
 * Version 5's statements in order: add the columns the merged rows need, copy Tool, Source,
 * TeamConfig and Approval rows and their relationships over (MERGE by id), point the relationship
 * tables at the merged table, drop the old ones. `kind` of a version 4 Decision row is 'council' (its default).
 */
const MERGE_TABLES = [
  'ALTER TABLE Specialist ADD IF NOT EXISTS server STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS inputSchema STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS annotations STRING',
  `MATCH (t:Tool) MERGE (s:Specialist {id: t.id})
    SET s.kind = 'tool', s.server = t.server, s.name = t.name, s.description = t.description, s.inputSchema = t.inputSchema,
        s.annotations = t.annotations, s.available = t.available, s.sourceId = t.sourceId`,
  'MATCH (t:Tool)-[:INGESTED_FROM]->(src:Source) MATCH (s:Specialist {id: t.id}) MERGE (s)-[:INGESTED_FROM]->(src)',
  'ALTER TABLE INGESTED_FROM DROP FROM Tool TO Source',
  'ALTER TABLE USES ADD FROM Specialist TO Specialist',
  'MATCH (a:Specialist)-[:USES]->(t:Tool) MATCH (b:Specialist {id: t.id}) MERGE (a)-[:USES]->(b)',
  'ALTER TABLE USES DROP FROM Specialist TO Tool',
  'ALTER TABLE CALLED ADD FROM Step TO Specialist',
  'MATCH (st:Step)-[c:CALLED]->(t:Tool) MATCH (s:Specialist {id: t.id}) MERGE (st)-[e:CALLED]->(s) SET e.status = c.status',
  'ALTER TABLE CALLED DROP FROM Step TO Tool',
  'DROP TABLE Tool',

  'ALTER TABLE Specialist ADD IF NOT EXISTS sourceKind STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS location STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS contentHash STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS ingestedAt STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS status STRING',
  'ALTER TABLE Specialist ADD IF NOT EXISTS error STRING',
  `MATCH (src:Source) MERGE (s:Specialist {id: src.id})
    SET s.kind = 'source', s.sourceKind = src.kind, s.location = src.location, s.contentHash = src.contentHash,
        s.ingestedAt = src.ingestedAt, s.status = src.status, s.error = src.error`,
  'ALTER TABLE INGESTED_FROM ADD FROM Specialist TO Specialist',
  'MATCH (a:Specialist)-[:INGESTED_FROM]->(src:Source) MATCH (b:Specialist {id: src.id}) MERGE (a)-[:INGESTED_FROM]->(b)',
  'ALTER TABLE INGESTED_FROM DROP FROM Specialist TO Source',
  'DROP TABLE Source',

  "ALTER TABLE Proficiency ADD IF NOT EXISTS callerId STRING DEFAULT ''",
  'ALTER TABLE Proficiency ADD IF NOT EXISTS pattern STRING',
  'ALTER TABLE Proficiency ADD IF NOT EXISTS specialists STRING',
  'ALTER TABLE Proficiency ADD IF NOT EXISTS plan STRING',
  'ALTER TABLE Proficiency ADD IF NOT EXISTS uses INT64',
  'ALTER TABLE Proficiency ADD IF NOT EXISTS avgScore DOUBLE',
  `MATCH (t:TeamConfig) MERGE (p:Proficiency {id: t.id})
    SET p.kind = 'team', p.callerId = t.callerId, p.pattern = t.pattern, p.specialists = t.specialists, p.plan = t.plan,
        p.uses = t.uses, p.successes = t.successes, p.avgScore = t.avgScore`,
  'ALTER TABLE REUSED ADD FROM Run TO Proficiency',
  'MATCH (r:Run)-[:REUSED]->(t:TeamConfig) MATCH (p:Proficiency {id: t.id}) MERGE (r)-[:REUSED]->(p)',
  'ALTER TABLE REUSED DROP FROM Run TO TeamConfig',
  'DROP TABLE TeamConfig',

  "ALTER TABLE Decision ADD IF NOT EXISTS kind STRING DEFAULT 'council'",
  'ALTER TABLE Decision ADD IF NOT EXISTS request STRING',
  'ALTER TABLE Decision ADD IF NOT EXISTS requestedAt STRING',
  'ALTER TABLE Decision ADD IF NOT EXISTS decision STRING',
  'ALTER TABLE Decision ADD IF NOT EXISTS resolvedBy STRING',
  'ALTER TABLE Decision ADD IF NOT EXISTS actor STRING',
  'ALTER TABLE Decision ADD IF NOT EXISTS resolvedAt STRING',
  `MATCH (a:Approval) MERGE (d:Decision {id: a.id})
    SET d.runId = a.runId, d.kind = a.kind, d.callerId = '', d.request = a.request, d.requestedAt = a.requestedAt,
        d.decision = a.decision, d.resolvedBy = a.resolvedBy, d.actor = a.actor, d.resolvedAt = a.resolvedAt`,
  'MATCH (r:Run)-[:HAS_APPROVAL]->(a:Approval) MATCH (d:Decision {id: a.id}) MERGE (r)-[:DECIDED]->(d)',
  'DROP TABLE HAS_APPROVAL',
  'DROP TABLE Approval',
];

/**
 * One transaction, the version comment included: a crash or an error anywhere leaves version 4 as
 * it was, and the next open runs this again.
 */
function mergeTables(session: KuzuSession): Promise<void> {
  return inOneTransaction(session, async () => {
    for (const statement of MERGE_TABLES) await session.ddl(statement);
    await writeVersion(session, 5);
  });
}

/** Version 6 and its version comment in one transaction, like version 5: a failure leaves version 5 as it was. */
function addForkOrigin(session: KuzuSession): Promise<void> {
  return inOneTransaction(session, async () => {
    await session.ddl('ALTER TABLE Run ADD IF NOT EXISTS forkedFrom STRING');
    await writeVersion(session, 6);
  });
}

async function inOneTransaction(session: KuzuSession, work: () => Promise<void>): Promise<void> {
  await session.ddl('BEGIN TRANSACTION');
  try {
    await work();
    await session.ddl('COMMIT');
  } catch (err) {
    await session.ddl('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** The last version kept in the Meta table; later ones are a table's comment (versionTable). */
const LAST_META_VERSION = 3;
/** The table whose comment holds a version after LAST_META_VERSION: version 5 dropped Source. */
const versionTable = (version: number) => (version >= 5 ? 'Specialist' : 'Source');
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
 * The applied version: Meta's row while there is one (versions 1-3), else Specialist's comment (5 on),
 * else Source's (4), else 0 (new; an empty Meta is what a version 1-3 Parley left when it stopped
 * while creating the schema).
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
  const comment =
    VERSION_COMMENT.exec(tables.get('Specialist') ?? '') ?? VERSION_COMMENT.exec(tables.get('Source') ?? '');
  return comment ? Number(comment[1]) : 0;
}

async function writeVersion(session: KuzuSession, version: number): Promise<void> {
  if (version > LAST_META_VERSION) {
    await session.ddl(`COMMENT ON TABLE ${versionTable(version)} IS 'parley schema ${version}'`);
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
    if (current === 0 && last === SCHEMA_VERSION) return createFresh(session);
    // An older version on a new database (tests build them) is its versions' steps in turn, as an upgrade ran them.
    for (let v = current + 1; v <= last; v++) {
      for (const step of MIGRATIONS[v] ?? []) await (typeof step === 'string' ? session.ddl(step) : step(session));
      await writeVersion(session, v);
    }
  });
}

/** An existing database at an older version (not a new one, not a newer one): openMigrated migrates a copy. */
export async function needsMigration(session: KuzuSession): Promise<boolean> {
  const current = await session.exclusive(() => readVersion(session));
  return current > 0 && current < SCHEMA_VERSION;
}

/**
 * A new database gets the current version's DDL (CURRENT) in one write transaction, and the version at
 * once: one commit instead of one per table (a cold start on a fresh data dir: docs/performance.md).
 */
function createFresh(session: KuzuSession): Promise<void> {
  return inOneTransaction(session, async () => {
    for (const statement of CURRENT) await session.ddl(statement);
    await session.ddl('DROP TABLE IF EXISTS Meta');
    await writeVersion(session, SCHEMA_VERSION);
  });
}
