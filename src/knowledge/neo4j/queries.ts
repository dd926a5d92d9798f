/**
 * Every Cypher statement of the Neo4j backend, parameterised only (values never interpolated).
 * test/unit/knowledge/cypher-lint.test.ts checks each one with Neo4j's own linter
 * (@neo4j-cypher/language-support), parameters declared, so a typo fails CI without a server.
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
  linkSpecialistSource: 'MATCH (s:Specialist {id: $id}) MATCH (src:Source {id: $sourceId}) MERGE (s)-[:INGESTED_FROM]->(src)',
  unlinkSpecialistTools: 'MATCH (s:Specialist {id: $id})-[r:USES]->(:Tool) DELETE r',
  linkSpecialistTools: 'MATCH (s:Specialist {id: $id}) MATCH (t:Tool) WHERE t.id IN $tools MERGE (s)-[:USES]->(t)',
  linkToolUsers: `MATCH (s:Specialist) WHERE s.tools CONTAINS $quoted MATCH (t:Tool {id: $id}) MERGE (s)-[:USES]->(t)`,
  upsertTool: `MERGE (t:Tool {id: $id})
    SET t.server = $server, t.name = $name, t.description = $description, t.inputSchema = $inputSchema,
        t.annotations = $annotations, t.available = $available, t.sourceId = $sourceId`,
  linkToolSource: 'MATCH (t:Tool {id: $id}) MATCH (src:Source {id: $sourceId}) MERGE (t)-[:INGESTED_FROM]->(src)',
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
  upsertProficiencies: `UNWIND $rows AS p
    MERGE (x:Proficiency {id: p.id})
    SET x.subject = p.subject, x.kind = p.kind, x.runs = p.runs, x.successes = p.successes,
        x.meanScore = p.meanScore, x.meanLatencyMs = p.meanLatencyMs, x.meanCostUsd = p.meanCostUsd,
        x.costRuns = p.costRuns`,

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
  /** Final statistics of each team a batch of runs taught (one row per team). */
  upsertTeams: `UNWIND $teams AS x
    MERGE (t:TeamConfig {id: x.id})
    SET t.callerId = x.callerId, t.pattern = x.pattern, t.specialists = x.specialists, t.plan = x.plan, t.uses = x.uses,
        t.successes = x.successes, t.avgScore = x.avgScore`,
  /** The runs that taught a team (fresh runs: the link cannot exist yet). */
  linkRunTeams: `UNWIND $links AS l
    MATCH (r:Run {id: l.runId}) MATCH (t:TeamConfig {id: l.teamId})
    CREATE (r)-[:REUSED]->(t)`,

  /** Which of a batch's runs were recorded before (they are updated, and teach nothing again). */
  seenRuns: 'UNWIND $ids AS rid MATCH (r:Run {id: rid}) RETURN r.id AS id',
  /** Runs recorded for the first time (a MERGE … SET over a list costs Kuzu ~2.5× this CREATE). */
  createRuns: `UNWIND $runs AS x
    CREATE (r:Run {id: x.id, threadId: x.threadId, query: x.query, protocol: x.protocol, callerId: x.callerId,
      startedAt: x.startedAt, durationMs: x.durationMs, status: x.status, answer: x.answer, error: x.error,
      tokens: x.tokens, costUsd: x.costUsd, score: x.score, plan: x.plan, teamConfigId: x.teamConfigId,
      searchText: x.searchText})`,
  /** Runs recorded again: every property replaced. */
  updateRuns: `UNWIND $runs AS x
    MATCH (r:Run {id: x.id})
    SET r.threadId = x.threadId, r.query = x.query, r.protocol = x.protocol, r.callerId = x.callerId,
        r.startedAt = x.startedAt, r.durationMs = x.durationMs, r.status = x.status, r.answer = x.answer,
        r.error = x.error, r.tokens = x.tokens, r.costUsd = x.costUsd, r.score = x.score, r.plan = x.plan,
        r.teamConfigId = x.teamConfigId, r.searchText = x.searchText`,
  deleteStepsOfRuns: 'UNWIND $runIds AS rid MATCH (:Run {id: rid})-[:HAS_STEP]->(s:Step) DETACH DELETE s',
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
    MATCH (st:Step {id: c.stepId}) MATCH (t:Tool {id: c.tool})
    MERGE (st)-[e:CALLED]->(t) SET e.status = c.status`,
  linkRunApprovals: 'MATCH (r:Run {id: $runId}) MATCH (a:Approval {runId: $runId}) MERGE (r)-[:HAS_APPROVAL]->(a)',
  linkRunDecisions: 'MATCH (r:Run {id: $runId}) MATCH (d:Decision {runId: $runId}) MERGE (r)-[:DECIDED]->(d)',
  getRun: 'MATCH (r:Run {id: $id}) RETURN r',
  stepsOfRun: 'MATCH (:Run {id: $runId})-[:HAS_STEP]->(s:Step) RETURN s ORDER BY s.idx',
  listRuns: `MATCH (r:Run)
    WHERE ($status = '' OR r.status = $status) AND ($threadId = '' OR r.threadId = $threadId)
      AND ($callerId = '' OR r.callerId = $callerId)
    RETURN r.id AS id, r.query AS query, r.status AS status, r.startedAt AS startedAt, r.durationMs AS durationMs,
           r.score AS score
    ORDER BY r.startedAt DESC, r.id DESC LIMIT $limit`,
  searchRuns: `CALL db.index.fulltext.queryNodes('run_text', $q) YIELD node, score
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

/** Schema statements run at open; all idempotent. */
export const SCHEMA = [
  ...['Meta:key', 'Source:id', 'Specialist:id', 'Tool:id', 'Run:id', 'Step:id', 'TeamConfig:id', 'Proficiency:id', 'Approval:id', 'Decision:id'].map((pair) => {
    const [label, key] = pair.split(':');
    return `CREATE CONSTRAINT ${label!.toLowerCase()}_${key} IF NOT EXISTS FOR (n:${label}) REQUIRE n.${key} IS UNIQUE`;
  }),
  'CREATE INDEX step_run IF NOT EXISTS FOR (n:Step) ON (n.runId)',
  'CREATE INDEX approval_run IF NOT EXISTS FOR (n:Approval) ON (n.runId)',
  'CREATE INDEX run_started IF NOT EXISTS FOR (n:Run) ON (n.startedAt)',
  'CREATE FULLTEXT INDEX specialist_text IF NOT EXISTS FOR (n:Specialist) ON EACH [n.searchText]',
  'CREATE FULLTEXT INDEX run_text IF NOT EXISTS FOR (n:Run) ON EACH [n.searchText]',
] as const;

export const READ_SCHEMA_VERSION = "MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v";
export const WRITE_SCHEMA_VERSION = "MERGE (m:Meta {key: 'schemaVersion'}) SET m.value = $v";
