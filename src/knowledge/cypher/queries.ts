/**
 * The statements the store runs, by name. Most read the same in Kuzu's and Neo4j's dialects and are
 * written once here (CYPHER); each backend's queries.ts adds only the ones its dialect spells
 * differently (DialectQueries): Kuzu CASTs numbers sent inside lists (kuzu/store.ts bindValue) and
 * matches two nodes with a comma, Neo4j with two MATCH clauses. Every statement of both backends has
 * the same parameters and result columns. test/unit/knowledge/cypher-lint.test.ts lints all of
 * Neo4j's (the shared ones included) with Neo4j's own linter.
 *
 * Labels (docs/knowledge.md, Schema): a tool is a Specialist node of kind 'tool', an ingestion source
 * one of kind 'source' (its own kind is sourceKind), a proven team a Proficiency node of kind 'team',
 * an approval a Decision node of kind 'tool' or 'elicitation' beside the council's (kind 'council');
 * every statement about one of them names its kind.
 */

/** The statements a backend provides, each in its own dialect, with the same parameters and result columns. */
export const QUERY_NAMES = [
  'upsertSource',
  'getSource',
  'upsertSpecialist',
  'unlinkSpecialistSource',
  'linkSpecialistSource',
  'unlinkSpecialistTools',
  'linkSpecialistTools',
  'linkToolUsers',
  'upsertTool',
  'linkToolSource',
  'markSpecialistsGone',
  'markToolsGone',
  'listSpecialists',
  'getSpecialist',
  'specialistsByIds',
  'listTools',
  'listToolsOfServer',
  'getTool',
  'listProficiencies',
  'getProficiency',
  'upsertProficiencies',
  'lockProficiencies',
  'lockTeams',
  'listTeams',
  'getTeam',
  'teamsByIds',
  'upsertTeams',
  'linkRunTeams',
  'seenRuns',
  'createRuns',
  'updateRuns',
  'deleteStepsOfRuns',
  'createSteps',
  'linkStepTools',
  'linkRunDecisions',
  'getRun',
  'stepsOfRun',
  'listRuns',
  'upsertApproval',
  'listApprovals',
  'upsertDecision',
  'listDecisions',
  'getDecision',
  'recentRuns',
  'answersOfRuns',
] as const;
export type QueryName = (typeof QUERY_NAMES)[number];
export type QuerySet = Record<QueryName, string>;

/** The statements both dialects spell the same. */
export const CYPHER = {
  upsertSource: `MERGE (s:Specialist {id: $id})
    SET s.kind = 'source', s.sourceKind = $kind, s.location = $location, s.contentHash = $contentHash, s.ingestedAt = $ingestedAt,
        s.status = $status, s.error = $error`,
  getSource: "MATCH (s:Specialist {id: $id, kind: 'source'}) RETURN s",

  upsertSpecialist: `MERGE (s:Specialist {id: $id})
    SET s.name = $name, s.description = $description, s.kind = $kind, s.domains = $domains, s.prompt = $prompt,
        s.endpoint = $endpoint, s.modelRole = $modelRole, s.tools = $tools, s.sourceId = $sourceId,
        s.available = $available, s.unavailableReason = $unavailableReason, s.searchText = $searchText`,
  unlinkSpecialistSource: "MATCH (s:Specialist {id: $id})-[r:INGESTED_FROM]->(:Specialist {kind: 'source'}) DELETE r",
  unlinkSpecialistTools: "MATCH (s:Specialist {id: $id})-[r:USES]->(:Specialist {kind: 'tool'}) DELETE r",
  upsertTool: `MERGE (t:Specialist {id: $id})
    SET t.kind = 'tool', t.server = $server, t.name = $name, t.description = $description, t.inputSchema = $inputSchema,
        t.annotations = $annotations, t.available = $available, t.sourceId = $sourceId`,
  markSpecialistsGone: `MATCH (s:Specialist) WHERE s.sourceId = $sourceId AND NOT s.kind IN ['tool', 'source'] AND NOT s.id IN $keep AND s.available = true
    SET s.available = false, s.unavailableReason = 'no longer listed by its source'`,
  markToolsGone: `MATCH (t:Specialist {kind: 'tool'}) WHERE t.sourceId = $sourceId AND NOT t.id IN $keep SET t.available = false`,
  listSpecialists: "MATCH (s:Specialist) WHERE NOT s.kind IN ['tool', 'source'] RETURN s ORDER BY s.id",
  getSpecialist: "MATCH (s:Specialist {id: $id}) WHERE NOT s.kind IN ['tool', 'source'] RETURN s",
  specialistsByIds: "MATCH (s:Specialist) WHERE s.id IN $ids AND NOT s.kind IN ['tool', 'source'] RETURN s",
  listTools: "MATCH (t:Specialist {kind: 'tool'}) RETURN t ORDER BY t.id",
  listToolsOfServer: "MATCH (t:Specialist {kind: 'tool', server: $server}) RETURN t ORDER BY t.id",
  getTool: "MATCH (t:Specialist {id: $id, kind: 'tool'}) RETURN t",

  getProficiency: "MATCH (p:Proficiency {id: $id}) WHERE p.kind <> 'team' RETURN p",
  listProficiencies: "MATCH (p:Proficiency) WHERE p.kind <> 'team' RETURN p",
  /** Creates missing records and write-locks all of them for the rest of the transaction. */
  lockProficiencies: `UNWIND $ids AS pid
    MERGE (p:Proficiency {id: pid}) SET p.runs = coalesce(p.runs, 0)
    RETURN p`,
  lockTeams: `UNWIND $ids AS tid
    MERGE (t:Proficiency {id: tid}) ON CREATE SET t.kind = 'team' SET t.uses = coalesce(t.uses, 0)
    RETURN t`,

  listTeams:
    "MATCH (t:Proficiency {kind: 'team'}) RETURN t.id AS id, t.callerId AS callerId, t.pattern AS pattern, t.uses AS uses, t.successes AS successes, t.avgScore AS avgScore",
  getTeam: "MATCH (t:Proficiency {id: $id, kind: 'team'}) RETURN t",
  teamsByIds: "MATCH (t:Proficiency {kind: 'team'}) WHERE t.id IN $ids RETURN t",

  /** Which of a batch's runs were recorded before (they are updated, and teach nothing again). */
  seenRuns: 'UNWIND $ids AS rid MATCH (r:Run {id: rid}) RETURN r.id AS id',
  deleteStepsOfRuns: 'UNWIND $runIds AS rid MATCH (:Run {id: rid})-[:HAS_STEP]->(s:Step) DETACH DELETE s',
  getRun: 'MATCH (r:Run {id: $id}) RETURN r',
  stepsOfRun: 'MATCH (:Run {id: $runId})-[:HAS_STEP]->(s:Step) RETURN s ORDER BY s.idx',
  listRuns: `MATCH (r:Run)
    WHERE ($status = '' OR r.status = $status) AND ($threadId = '' OR r.threadId = $threadId)
      AND ($callerId = '' OR r.callerId = $callerId) AND ($protocol = '' OR r.protocol = $protocol)
    RETURN r.id AS id, r.query AS query, r.status AS status, r.startedAt AS startedAt, r.durationMs AS durationMs,
           r.score AS score, r.threadId AS threadId, r.protocol AS protocol, r.callerId AS callerId, r.forkedFrom AS forkedFrom
    ORDER BY r.startedAt DESC, r.id DESC LIMIT $limit`,

  upsertApproval: `MERGE (a:Decision {id: $id})
    SET a.runId = $runId, a.kind = $kind, a.request = $request, a.requestedAt = $requestedAt, a.decision = $decision,
        a.resolvedBy = $resolvedBy, a.actor = $actor, a.resolvedAt = $resolvedAt`,
  listApprovals: "MATCH (a:Decision {runId: $runId}) WHERE a.kind <> 'council' RETURN a ORDER BY a.requestedAt, a.id",
  upsertDecision: `MERGE (d:Decision {id: $id})
    SET d.kind = 'council', d.runId = $runId, d.callerId = $callerId, d.question = $question, d.verdict = $verdict, d.decidedAt = $decidedAt`,
  listDecisions: `MATCH (d:Decision {kind: 'council'}) WHERE $callerId = '' OR d.callerId = $callerId
    RETURN d ORDER BY d.decidedAt DESC, d.id DESC LIMIT $limit`,
  getDecision: "MATCH (d:Decision {id: $id, kind: 'council'}) RETURN d",

  /** The window of recent runs the in-memory memory search holds (loaded with the view). */
  recentRuns: `MATCH (r:Run)
    RETURN r.id AS id, r.callerId AS callerId, r.query AS query, r.answer AS answer, r.score AS score, r.status AS status, r.startedAt AS startedAt
    ORDER BY r.startedAt DESC, r.id DESC LIMIT $limit`,
  /** Whole answers of memory hits (the window keeps their first characters only). */
  answersOfRuns: 'MATCH (r:Run) WHERE r.id IN $ids RETURN r.id AS id, r.answer AS answer',
} as const satisfies Partial<QuerySet>;

/** What a backend's queries.ts must supply: every statement CYPHER does not. */
export type DialectQueries = Record<Exclude<QueryName, keyof typeof CYPHER>, string>;
