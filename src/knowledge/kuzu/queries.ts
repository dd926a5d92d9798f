/**
 * The Cypher statements of the Kuzu backend (Kuzu's dialect: declared schema, no `+=` maps): the
 * shared ones (../cypher/queries.ts) and those Kuzu spells its own way.
 * A list parameter of objects binds as columns or as a LIST(STRUCT), its numbers as strings the
 * statements CAST back (kuzu/params.ts).
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
  /**
   * Runs recorded for the first time (a MERGE … SET over a list costs Kuzu ~2.5× this CREATE). The
   * batch statements below read their rows as columns (kuzu/params.ts): `$runs_id[i]` is row i's id.
   * searchText is not written: no index or query reads it since schema 3 (the memory search is in memory).
   */
  createRuns: `UNWIND range(1, size($runs_id)) AS i
    CREATE (r:Run {id: $runs_id[i], threadId: $runs_threadId[i], query: $runs_query[i], protocol: $runs_protocol[i],
      callerId: $runs_callerId[i], startedAt: $runs_startedAt[i], durationMs: CAST($runs_durationMs[i] AS DOUBLE),
      status: $runs_status[i], answer: nullif($runs_answer[i], ''), error: nullif($runs_error[i], ''),
      tokens: CAST($runs_tokens[i] AS DOUBLE), costUsd: CAST(nullif($runs_costUsd[i], '') AS DOUBLE),
      score: CAST(nullif($runs_score[i], '') AS DOUBLE), plan: nullif($runs_plan[i], ''),
      teamConfigId: nullif($runs_teamConfigId[i], ''), forkedFrom: nullif($runs_forkedFrom[i], '')})`,
  /** Runs recorded again: every property replaced. */
  updateRuns: `UNWIND range(1, size($runs_id)) AS i
    MATCH (r:Run {id: $runs_id[i]})
    SET r.threadId = $runs_threadId[i], r.query = $runs_query[i], r.protocol = $runs_protocol[i],
        r.callerId = $runs_callerId[i], r.startedAt = $runs_startedAt[i], r.durationMs = CAST($runs_durationMs[i] AS DOUBLE),
        r.status = $runs_status[i], r.answer = nullif($runs_answer[i], ''), r.error = nullif($runs_error[i], ''),
        r.tokens = CAST($runs_tokens[i] AS DOUBLE), r.costUsd = CAST(nullif($runs_costUsd[i], '') AS DOUBLE),
        r.score = CAST(nullif($runs_score[i], '') AS DOUBLE), r.plan = nullif($runs_plan[i], ''),
        r.teamConfigId = nullif($runs_teamConfigId[i], ''), r.forkedFrom = nullif($runs_forkedFrom[i], '')`,
  /** The steps of a batch of runs and their BY link to the specialist (a step of an unknown specialist has none). */
  createSteps: `UNWIND range(1, size($steps_id)) AS i
    MATCH (r:Run {id: $steps_runId[i]})
    CREATE (r)-[:HAS_STEP]->(st:Step {id: $steps_id[i], runId: $steps_runId[i], stepId: $steps_stepId[i],
      idx: CAST($steps_idx[i] AS INT64), specialist: $steps_specialist[i], objective: $steps_objective[i],
      status: $steps_status[i], output: $steps_output[i], error: $steps_error[i],
      durationMs: CAST($steps_durationMs[i] AS DOUBLE), tokens: CAST($steps_tokens[i] AS DOUBLE),
      costUsd: CAST(nullif($steps_costUsd[i], '') AS DOUBLE), toolCalls: $steps_toolCalls[i]})
    WITH st, i
    MATCH (sp:Specialist {id: $steps_specialist[i]})
    CREATE (st)-[:BY]->(sp)`,
  linkStepTools: `UNWIND $calls AS c
    MATCH (st:Step {id: c.stepId}), (t:Specialist {id: c.tool, kind: 'tool'})
    MERGE (st)-[e:CALLED]->(t) SET e.status = c.status`,
  /** A run's council decisions and approvals (Decision rows of every kind). */
  linkRunDecisions: 'MATCH (r:Run {id: $runId}), (d:Decision {runId: $runId}) MERGE (r)-[:DECIDED]->(d)',
} as const satisfies DialectQueries;

export const Q: QuerySet = { ...CYPHER, ...DIALECT };
