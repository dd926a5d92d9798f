/**
 * Every Cypher statement of the Neo4j backend (the shared ones of ../cypher/queries.ts and those
 * Neo4j spells its own way), parameterised only (values never interpolated).
 * test/unit/knowledge/cypher-lint.test.ts checks each one (Q, SCHEMA, the schema version) with
 * Neo4j's own linter (@neo4j-cypher/language-support), parameters declared, so a typo fails CI
 * without a server.
 */
import { CYPHER, type DialectQueries, type QuerySet } from '../cypher/queries.ts';

/** The statements Neo4j spells its own way; the rest are CYPHER. */
const DIALECT = {
  linkSpecialistSource:
    "MATCH (s:Specialist {id: $id}) MATCH (src:Specialist {id: $sourceId, kind: 'source'}) MERGE (s)-[:INGESTED_FROM]->(src)",
  linkSpecialistTools:
    "MATCH (s:Specialist {id: $id}) MATCH (t:Specialist {kind: 'tool'}) WHERE t.id IN $tools MERGE (s)-[:USES]->(t)",
  linkToolUsers: `MATCH (s:Specialist) WHERE s.tools CONTAINS $quoted
    MATCH (t:Specialist {id: $id, kind: 'tool'}) MERGE (s)-[:USES]->(t)`,
  linkToolSource:
    "MATCH (t:Specialist {id: $id, kind: 'tool'}) MATCH (src:Specialist {id: $sourceId, kind: 'source'}) MERGE (t)-[:INGESTED_FROM]->(src)",
  upsertProficiencies: `UNWIND $rows AS p
    MERGE (x:Proficiency {id: p.id})
    SET x.subject = p.subject, x.kind = p.kind, x.runs = p.runs, x.successes = p.successes,
        x.meanScore = p.meanScore, x.meanLatencyMs = p.meanLatencyMs, x.meanCostUsd = p.meanCostUsd,
        x.costRuns = p.costRuns`,
  /** Final statistics of each team a batch of runs taught (one row per team). */
  upsertTeams: `UNWIND $teams AS x
    MERGE (t:Proficiency {id: x.id})
    SET t.kind = 'team', t.callerId = x.callerId, t.pattern = x.pattern, t.specialists = x.specialists, t.plan = x.plan, t.uses = x.uses,
        t.successes = x.successes, t.avgScore = x.avgScore`,
  /** The runs that taught a team (fresh runs: the link cannot exist yet). */
  linkRunTeams: `UNWIND $links AS l
    MATCH (r:Run {id: l.runId}) MATCH (t:Proficiency {id: l.teamId, kind: 'team'})
    CREATE (r)-[:REUSED]->(t)`,
  /** Runs recorded for the first time (a MERGE … SET over a list costs Kuzu ~2.5× this CREATE). */
  createRuns: `UNWIND $runs AS x
    CREATE (r:Run {id: x.id, threadId: x.threadId, query: x.query, protocol: x.protocol, callerId: x.callerId,
      startedAt: x.startedAt, durationMs: x.durationMs, status: x.status, answer: x.answer, error: x.error,
      tokens: x.tokens, costUsd: x.costUsd, score: x.score, plan: x.plan, teamConfigId: x.teamConfigId,
      forkedFrom: x.forkedFrom, searchText: x.searchText})`,
  /** Runs recorded again: every property replaced. */
  updateRuns: `UNWIND $runs AS x
    MATCH (r:Run {id: x.id})
    SET r.threadId = x.threadId, r.query = x.query, r.protocol = x.protocol, r.callerId = x.callerId,
        r.startedAt = x.startedAt, r.durationMs = x.durationMs, r.status = x.status, r.answer = x.answer,
        r.error = x.error, r.tokens = x.tokens, r.costUsd = x.costUsd, r.score = x.score, r.plan = x.plan,
        r.teamConfigId = x.teamConfigId, r.forkedFrom = x.forkedFrom, r.searchText = x.searchText`,
  /** The steps of a batch of runs and their BY link to the specialist (a step of an unknown specialist has none). */
  createSteps: `UNWIND $steps AS x
    MATCH (r:Run {id: x.runId})
    CREATE (r)-[:HAS_STEP]->(st:Step {id: x.id, runId: x.runId, stepId: x.stepId, idx: x.idx, specialist: x.specialist,
      objective: x.objective, status: x.status, output: x.output, error: x.error, durationMs: x.durationMs,
      tokens: x.tokens, costUsd: x.costUsd, toolCalls: x.toolCalls})
    WITH st, x
    MATCH (sp:Specialist {id: x.specialist})
    CREATE (st)-[:BY]->(sp)`,
  linkStepTools: `UNWIND $calls AS c
    MATCH (st:Step {id: c.stepId}) MATCH (t:Specialist {id: c.tool, kind: 'tool'})
    MERGE (st)-[e:CALLED]->(t) SET e.status = c.status`,
  /** A run's council decisions and approvals (Decision nodes of every kind). */
  linkRunDecisions: 'MATCH (r:Run {id: $runId}) MATCH (d:Decision {runId: $runId}) MERGE (r)-[:DECIDED]->(d)',
} as const satisfies DialectQueries;

export const Q: QuerySet = { ...CYPHER, ...DIALECT };

/** Schema statements run at open; all idempotent. */
export const SCHEMA = [
  ...['Meta:key', 'Specialist:id', 'Run:id', 'Step:id', 'Proficiency:id', 'Decision:id'].map((pair) => {
    const [label, key] = pair.split(':');
    return `CREATE CONSTRAINT ${label!.toLowerCase()}_${key} IF NOT EXISTS FOR (n:${label}) REQUIRE n.${key} IS UNIQUE`;
  }),
  'CREATE INDEX step_run IF NOT EXISTS FOR (n:Step) ON (n.runId)',
  'CREATE INDEX decision_run IF NOT EXISTS FOR (n:Decision) ON (n.runId)',
  'CREATE INDEX run_started IF NOT EXISTS FOR (n:Run) ON (n.startedAt)',
  // Schema version 1's: its Source, Tool, TeamConfig and Approval labels are now kinds (MIGRATE_TO_2).
  'DROP CONSTRAINT source_id IF EXISTS',
  'DROP CONSTRAINT tool_id IF EXISTS',
  'DROP CONSTRAINT teamconfig_id IF EXISTS',
  'DROP CONSTRAINT approval_id IF EXISTS',
  'DROP INDEX approval_run IF EXISTS',
  // Full-text indexes of old versions: search runs in memory (knowledge/view.ts), so they only cost writes.
  'DROP INDEX specialist_text IF EXISTS',
  'DROP INDEX run_text IF EXISTS',
] as const;

/**
 * Schema version 2, as Kuzu's version 5 (kuzu/schema.ts; docs/knowledge.md, Schema): a Tool becomes
 * a Specialist of kind 'tool', a Source one of kind 'source' (its own kind moves to sourceKind), a TeamConfig a Proficiency of kind 'team', an Approval a Decision of
 * its own kind (a version 1 Decision is the council's). Relabelled in place, so every relationship
 * stays; each statement matches only what is still to do, and all run in one write transaction.
 */
export const MIGRATE_TO_2 = [
  "MATCH (d:Decision) WHERE d.kind IS NULL SET d.kind = 'council'",
  'MATCH (a:Approval) SET a:Decision REMOVE a:Approval',
  'MATCH (r:Run)-[h:HAS_APPROVAL]->(d:Decision) MERGE (r)-[:DECIDED]->(d) DELETE h',
  "MATCH (t:TeamConfig) SET t:Proficiency, t.kind = 'team' REMOVE t:TeamConfig",
  "MATCH (t:Tool) SET t:Specialist, t.kind = 'tool' REMOVE t:Tool",
  "MATCH (s:Source) SET s:Specialist, s.sourceKind = s.kind, s.kind = 'source' REMOVE s:Source",
] as const;

export const READ_SCHEMA_VERSION = "MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v";
export const WRITE_SCHEMA_VERSION = "MERGE (m:Meta {key: 'schemaVersion'}) SET m.value = $v";
