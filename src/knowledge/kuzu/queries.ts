/**
 * The Cypher statements of the Kuzu backend (Kuzu's dialect: declared schema, no `+=` maps): the
 * shared ones (../cypher/queries.ts) and those Kuzu spells its own way.
 * A list parameter of objects binds as LIST(STRUCT) typed by its first element, so a number that is
 * whole in the first element and fractional in another would be stored as garbage: kuzuExecutor
 * sends every number inside such a list as a string, and the statements CAST it back.
 */
import { CYPHER, type DialectQueries, type QuerySet } from '../cypher/queries.ts';

/** The statements Kuzu spells its own way; the rest are CYPHER. */
const DIALECT = {
  linkSpecialistSource:
    "MATCH (s:Specialist {id: $id}), (src:Specialist {id: $sourceId, kind: 'source'}) MERGE (s)-[:INGESTED_FROM]->(src)",
  linkSpecialistTools:
    "MATCH (s:Specialist {id: $id}), (t:Specialist {kind: 'tool'}) WHERE t.id IN $tools MERGE (s)-[:USES]->(t)",
  linkToolUsers: `MATCH (s:Specialist), (t:Specialist {id: $id, kind: 'tool'}) WHERE s.tools CONTAINS $quoted
    MERGE (s)-[:USES]->(t)`,
  linkToolSource:
    "MATCH (t:Specialist {id: $id, kind: 'tool'}), (src:Specialist {id: $sourceId, kind: 'source'}) MERGE (t)-[:INGESTED_FROM]->(src)",
  /**
   * Only the statistics are SET on an existing record: Kuzu keeps a version of every updated column
   * until a checkpoint, and subject/kind never change (docs/knowledge.md, Memory). The store is the
   * only writer on Kuzu, so no record exists half-made by a lock statement (Neo4j's lockProficiencies).
   */
  upsertProficiencies: `UNWIND $rows AS p
    MERGE (x:Proficiency {id: p.id})
    ON CREATE SET x.subject = p.subject, x.kind = p.kind
    SET x.runs = CAST(p.runs AS INT64), x.successes = CAST(p.successes AS INT64),
        x.meanScore = CAST(p.meanScore AS DOUBLE), x.meanLatencyMs = CAST(p.meanLatencyMs AS DOUBLE), x.meanCostUsd = CAST(p.meanCostUsd AS DOUBLE),
        x.costRuns = CAST(p.costRuns AS INT64)`,
  /** Final statistics of each team a batch of runs taught (one row per team); caller, pattern and specialists never change. */
  upsertTeams: `UNWIND $teams AS x
    MERGE (t:Proficiency {id: x.id})
    ON CREATE SET t.kind = 'team', t.callerId = x.callerId, t.pattern = x.pattern, t.specialists = x.specialists
    SET t.plan = x.plan, t.uses = CAST(x.uses AS INT64), t.successes = CAST(x.successes AS INT64), t.avgScore = CAST(x.avgScore AS DOUBLE)`,
  /** The runs that taught a team (fresh runs: the link cannot exist yet). */
  linkRunTeams: `UNWIND $links AS l
    MATCH (r:Run {id: l.runId}), (t:Proficiency {id: l.teamId, kind: 'team'})
    CREATE (r)-[:REUSED]->(t)`,
  /** Runs recorded for the first time (a MERGE … SET over a list costs Kuzu ~2.5× this CREATE). */
  createRuns: `UNWIND $runs AS x
    CREATE (r:Run {id: x.id, threadId: x.threadId, query: x.query, protocol: x.protocol, callerId: x.callerId,
      startedAt: x.startedAt, durationMs: CAST(x.durationMs AS DOUBLE), status: x.status, answer: x.answer, error: x.error,
      tokens: CAST(x.tokens AS DOUBLE), costUsd: CAST(x.costUsd AS DOUBLE), score: CAST(x.score AS DOUBLE), plan: x.plan, teamConfigId: x.teamConfigId,
      searchText: x.searchText})`,
  /** Runs recorded again: every property replaced. */
  updateRuns: `UNWIND $runs AS x
    MATCH (r:Run {id: x.id})
    SET r.threadId = x.threadId, r.query = x.query, r.protocol = x.protocol, r.callerId = x.callerId,
        r.startedAt = x.startedAt, r.durationMs = CAST(x.durationMs AS DOUBLE), r.status = x.status, r.answer = x.answer,
        r.error = x.error, r.tokens = CAST(x.tokens AS DOUBLE), r.costUsd = CAST(x.costUsd AS DOUBLE), r.score = CAST(x.score AS DOUBLE), r.plan = x.plan,
        r.teamConfigId = x.teamConfigId, r.searchText = x.searchText`,
  /** The steps of a batch of runs and their BY link to the specialist (a step of an unknown specialist has none). */
  createSteps: `UNWIND $steps AS x
    MATCH (r:Run {id: x.runId})
    CREATE (r)-[:HAS_STEP]->(st:Step {id: x.id, runId: x.runId, stepId: x.stepId, idx: CAST(x.idx AS INT64), specialist: x.specialist,
      objective: x.objective, status: x.status, output: x.output, error: x.error, durationMs: CAST(x.durationMs AS DOUBLE),
      tokens: CAST(x.tokens AS DOUBLE), costUsd: CAST(x.costUsd AS DOUBLE), toolCalls: x.toolCalls})
    WITH st, x
    MATCH (sp:Specialist {id: x.specialist})
    CREATE (st)-[:BY]->(sp)`,
  linkStepTools: `UNWIND $calls AS c
    MATCH (st:Step {id: c.stepId}), (t:Specialist {id: c.tool, kind: 'tool'})
    MERGE (st)-[e:CALLED]->(t) SET e.status = c.status`,
  /** A run's council decisions and approvals (Decision rows of every kind). */
  linkRunDecisions: 'MATCH (r:Run {id: $runId}), (d:Decision {runId: $runId}) MERGE (r)-[:DECIDED]->(d)',
} as const satisfies DialectQueries;

export const Q: QuerySet = { ...CYPHER, ...DIALECT };
