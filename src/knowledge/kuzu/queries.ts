/**
 * Every Cypher statement of the Kuzu backend (Kuzu's dialect: declared schema, no `+=` maps).
 * A list parameter of objects binds as LIST(STRUCT) typed by its first element, so a number that is
 * whole in the first element and fractional in another would be stored as garbage: kuzuExecutor
 * sends every number inside such a list as a string, and the statements CAST it back.
 */
import type { QuerySet } from '../cypher-store.ts';

export const Q = {
  upsertSource: `MERGE (s:Source {id: $id})
    SET s.kind = $kind, s.location = $location, s.contentHash = $contentHash, s.ingestedAt = $ingestedAt,
        s.status = $status, s.error = $error`,
  getSource: 'MATCH (s:Source {id: $id}) RETURN s',

  upsertSpecialist: `MERGE (s:Specialist {id: $id})
    SET s.name = $name, s.description = $description, s.kind = $kind, s.domains = $domains, s.prompt = $prompt,
        s.endpoint = $endpoint, s.modelRole = $modelRole, s.tools = $tools, s.sourceId = $sourceId,
        s.available = $available, s.unavailableReason = $unavailableReason, s.searchText = $searchText`,
  unlinkSpecialistSource: 'MATCH (s:Specialist {id: $id})-[r:INGESTED_FROM]->(:Source) DELETE r',
  linkSpecialistSource: 'MATCH (s:Specialist {id: $id}), (src:Source {id: $sourceId}) MERGE (s)-[:INGESTED_FROM]->(src)',
  unlinkSpecialistTools: 'MATCH (s:Specialist {id: $id})-[r:USES]->(:Tool) DELETE r',
  linkSpecialistTools: 'MATCH (s:Specialist {id: $id}), (t:Tool) WHERE t.id IN $tools MERGE (s)-[:USES]->(t)',
  linkToolUsers: `MATCH (s:Specialist), (t:Tool {id: $id}) WHERE s.tools CONTAINS $quoted MERGE (s)-[:USES]->(t)`,
  upsertTool: `MERGE (t:Tool {id: $id})
    SET t.server = $server, t.name = $name, t.description = $description, t.inputSchema = $inputSchema,
        t.annotations = $annotations, t.available = $available, t.sourceId = $sourceId`,
  linkToolSource: 'MATCH (t:Tool {id: $id}), (src:Source {id: $sourceId}) MERGE (t)-[:INGESTED_FROM]->(src)',
  markSpecialistsGone: `MATCH (s:Specialist) WHERE s.sourceId = $sourceId AND NOT s.id IN $keep AND s.available = true
    SET s.available = false, s.unavailableReason = 'no longer listed by its source'`,
  markToolsGone: `MATCH (t:Tool) WHERE t.sourceId = $sourceId AND NOT t.id IN $keep SET t.available = false`,
  listSpecialists: 'MATCH (s:Specialist) RETURN s ORDER BY s.id',
  getSpecialist: 'MATCH (s:Specialist {id: $id}) RETURN s',
  specialistsByIds: 'MATCH (s:Specialist) WHERE s.id IN $ids RETURN s',
  listTools: 'MATCH (t:Tool) RETURN t ORDER BY t.id',
  listToolsOfServer: 'MATCH (t:Tool {server: $server}) RETURN t ORDER BY t.id',
  getTool: 'MATCH (t:Tool {id: $id}) RETURN t',

  getProficiency: 'MATCH (p:Proficiency {id: $id}) RETURN p',
  listProficiencies: 'MATCH (p:Proficiency) RETURN p',
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

  /** Creates missing records and write-locks all of them for the rest of the transaction. */
  lockProficiencies: `UNWIND $ids AS pid
    MERGE (p:Proficiency {id: pid}) SET p.runs = coalesce(p.runs, 0)
    RETURN p`,
  lockTeams: `UNWIND $ids AS tid
    MERGE (t:TeamConfig {id: tid}) SET t.uses = coalesce(t.uses, 0)
    RETURN t`,

  listTeams: 'MATCH (t:TeamConfig) RETURN t.id AS id, t.callerId AS callerId, t.pattern AS pattern, t.uses AS uses, t.successes AS successes, t.avgScore AS avgScore',
  getTeam: 'MATCH (t:TeamConfig {id: $id}) RETURN t',
  teamsByIds: 'MATCH (t:TeamConfig) WHERE t.id IN $ids RETURN t',
  /** Final statistics of each team a batch of runs taught (one row per team); caller, pattern and specialists never change. */
  upsertTeams: `UNWIND $teams AS x
    MERGE (t:TeamConfig {id: x.id})
    ON CREATE SET t.callerId = x.callerId, t.pattern = x.pattern, t.specialists = x.specialists
    SET t.plan = x.plan, t.uses = CAST(x.uses AS INT64), t.successes = CAST(x.successes AS INT64), t.avgScore = CAST(x.avgScore AS DOUBLE)`,
  /** The runs that taught a team (fresh runs: the link cannot exist yet). */
  linkRunTeams: `UNWIND $links AS l
    MATCH (r:Run {id: l.runId}), (t:TeamConfig {id: l.teamId})
    CREATE (r)-[:REUSED]->(t)`,

  /** Which of a batch's runs were recorded before (they are updated, and teach nothing again). */
  seenRuns: 'UNWIND $ids AS rid MATCH (r:Run {id: rid}) RETURN r.id AS id',
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
  deleteStepsOfRuns: 'UNWIND $runIds AS rid MATCH (:Run {id: rid})-[:HAS_STEP]->(s:Step) DETACH DELETE s',
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
    MATCH (st:Step {id: c.stepId}), (t:Tool {id: c.tool})
    MERGE (st)-[e:CALLED]->(t) SET e.status = c.status`,
  linkRunApprovals: 'MATCH (r:Run {id: $runId}), (a:Approval {runId: $runId}) MERGE (r)-[:HAS_APPROVAL]->(a)',
  linkRunDecisions: 'MATCH (r:Run {id: $runId}), (d:Decision {runId: $runId}) MERGE (r)-[:DECIDED]->(d)',
  getRun: 'MATCH (r:Run {id: $id}) RETURN r',
  stepsOfRun: 'MATCH (:Run {id: $runId})-[:HAS_STEP]->(s:Step) RETURN s ORDER BY s.idx',
  listRuns: `MATCH (r:Run)
    WHERE ($status = '' OR r.status = $status) AND ($threadId = '' OR r.threadId = $threadId)
      AND ($callerId = '' OR r.callerId = $callerId)
    RETURN r.id AS id, r.query AS query, r.status AS status, r.startedAt AS startedAt, r.durationMs AS durationMs,
           r.score AS score
    ORDER BY r.startedAt DESC, r.id DESC LIMIT $limit`,
  searchRuns: `CALL QUERY_FTS_INDEX('Run', 'run_text', $q, conjunctive := false)
    RETURN node.id AS id, node.query AS query, node.answer AS answer, node.score AS runScore, score
    ORDER BY score DESC LIMIT $limit`,

  upsertApproval: `MERGE (a:Approval {id: $id})
    SET a.runId = $runId, a.kind = $kind, a.request = $request, a.requestedAt = $requestedAt, a.decision = $decision,
        a.resolvedBy = $resolvedBy, a.actor = $actor, a.resolvedAt = $resolvedAt`,
  listApprovals: 'MATCH (a:Approval {runId: $runId}) RETURN a ORDER BY a.requestedAt, a.id',
  upsertDecision: `MERGE (d:Decision {id: $id})
    SET d.runId = $runId, d.callerId = $callerId, d.question = $question, d.verdict = $verdict, d.decidedAt = $decidedAt`,
  listDecisions: `MATCH (d:Decision) WHERE $callerId = '' OR d.callerId = $callerId
    RETURN d ORDER BY d.decidedAt DESC, d.id DESC LIMIT $limit`,

  /** The window of recent runs the in-memory memory search holds (loaded with the view). */
  recentRuns: `MATCH (r:Run)
    RETURN r.id AS id, r.callerId AS callerId, r.query AS query, r.answer AS answer, r.score AS score, r.startedAt AS startedAt
    ORDER BY r.startedAt DESC, r.id DESC LIMIT $limit`,
} as const satisfies QuerySet;
