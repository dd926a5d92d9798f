/**
 * The Neo4j schema on a real Neo4j (issue 45): what a fresh open creates (constraints and indexes),
 * the migration of a graph written by schema version 1 (Source, Tool, TeamConfig and Approval labels,
 * two full-text indexes) to version 2 with every record and relationship kept, and the refusal of a
 * graph written by a newer Parley. The mirror of kuzu-file.test.ts's migration tests.
 */
import { beforeEach, expect, it } from 'vitest';
import { NEO4J_SCHEMA_VERSION, openNeo4jStore } from '../../../src/knowledge/neo4j/store.ts';
import { ROSTER, run, step } from '../../support/records.ts';
import type { UsedNeo4j } from '../../support/use-neo4j.ts';

/** What a schema version 1 Parley created at open (its SCHEMA, before issue #13 dropped the full-text indexes). */
const VERSION_1_SCHEMA = [
  ...[
    'Meta:key',
    'Source:id',
    'Specialist:id',
    'Tool:id',
    'Run:id',
    'Step:id',
    'TeamConfig:id',
    'Proficiency:id',
    'Approval:id',
    'Decision:id',
  ].map((pair) => {
    const [label, key] = pair.split(':') as [string, string];
    return `CREATE CONSTRAINT ${label.toLowerCase()}_${key} IF NOT EXISTS FOR (n:${label}) REQUIRE n.${key} IS UNIQUE`;
  }),
  'CREATE INDEX step_run IF NOT EXISTS FOR (n:Step) ON (n.runId)',
  'CREATE INDEX approval_run IF NOT EXISTS FOR (n:Approval) ON (n.runId)',
  'CREATE INDEX run_started IF NOT EXISTS FOR (n:Run) ON (n.startedAt)',
  'CREATE FULLTEXT INDEX specialist_text IF NOT EXISTS FOR (n:Specialist) ON EACH [n.searchText]',
  'CREATE FULLTEXT INDEX run_text IF NOT EXISTS FOR (n:Run) ON EACH [n.searchText]',
];

/** What a version 1 Parley wrote: one of every label, linked as it linked them (its own statements' shapes). */
const VERSION_1_RECORDS = [
  "CREATE (:Meta {key: 'schemaVersion', value: '1'})",
  "CREATE (:Source {id: 'mcp:fs', kind: 'mcp', location: 'fs', contentHash: 'h', ingestedAt: '2026-01-01T00:00:00.000Z', status: 'ok'})",
  `CREATE (:Specialist {id: 'files', name: 'files', description: 'Reads files.', kind: 'mcp', domains: '[]', prompt: '',
    endpoint: 'fs', modelRole: 'specialist', tools: '["fs/read"]', sourceId: 'mcp:fs', available: true, searchText: 'files'})`,
  `CREATE (:Tool {id: 'fs/read', server: 'fs', name: 'read', description: 'Reads a file.', inputSchema: '{"type":"object"}',
    annotations: '{"readOnlyHint":true}', available: true, sourceId: 'mcp:fs'})`,
  "MATCH (s:Specialist {id: 'files'}) MATCH (src:Source {id: 'mcp:fs'}) CREATE (s)-[:INGESTED_FROM]->(src)",
  "MATCH (t:Tool {id: 'fs/read'}) MATCH (src:Source {id: 'mcp:fs'}) CREATE (t)-[:INGESTED_FROM]->(src)",
  "MATCH (s:Specialist {id: 'files'}) MATCH (t:Tool {id: 'fs/read'}) CREATE (s)-[:USES]->(t)",
  `CREATE (:Run {id: 'run-old', threadId: 't', query: 'Design a Postgres schema for invoices', protocol: 'test', callerId: 'tester',
    startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1.0, status: 'completed', answer: 'done', tokens: 1.0, costUsd: 0.0,
    score: 0.8, teamConfigId: 'team:old', searchText: 'design postgres schema invoices'})`,
  `MATCH (r:Run {id: 'run-old'}) CREATE (r)-[:HAS_STEP]->(:Step {id: 'run-old/s1', runId: 'run-old', stepId: 's1', idx: 0,
    specialist: 'files', objective: 'read', status: 'succeeded', output: 'ok', durationMs: 1.0, tokens: 1.0, costUsd: 0.0,
    toolCalls: '[{"tool":"fs/read","status":"ok"}]'})`,
  "MATCH (st:Step {id: 'run-old/s1'}) MATCH (s:Specialist {id: 'files'}) CREATE (st)-[:BY]->(s)",
  "MATCH (st:Step {id: 'run-old/s1'}) MATCH (t:Tool {id: 'fs/read'}) CREATE (st)-[:CALLED {status: 'ok'}]->(t)",
  `CREATE (:TeamConfig {id: 'team:old', callerId: 'tester', pattern: 'design invoic postgr schema', specialists: '["files"]',
    plan: '{"rationale":"","steps":[]}', uses: 5, successes: 4, avgScore: 0.8})`,
  "MATCH (r:Run {id: 'run-old'}) MATCH (t:TeamConfig {id: 'team:old'}) CREATE (r)-[:REUSED]->(t)",
  `CREATE (:Proficiency {id: 'specialist:files', subject: 'files', kind: 'specialist', runs: 3, successes: 3, meanScore: 0.8,
    meanLatencyMs: 10.0, meanCostUsd: 0.0, costRuns: 3})`,
  `CREATE (:Approval {id: 'a-old', runId: 'run-old', kind: 'tool', request: '{"tool":"fs/read"}', requestedAt: '2026-01-01T00:00:01.000Z',
    decision: '{"approved":true}', resolvedBy: 'human', actor: 'key-1', resolvedAt: '2026-01-01T00:00:02.000Z'})`,
  "MATCH (r:Run {id: 'run-old'}) MATCH (a:Approval {id: 'a-old'}) CREATE (r)-[:HAS_APPROVAL]->(a)",
  // Version 1's council decisions had no kind: the label said what they were.
  `CREATE (:Decision {id: 'd-old', runId: 'run-old', callerId: 'tester', question: 'Ship?', verdict: '{}',
    decidedAt: '2026-01-01T00:00:03.000Z'})`,
  "MATCH (r:Run {id: 'run-old'}) MATCH (d:Decision {id: 'd-old'}) CREATE (r)-[:DECIDED]->(d)",
];

/** What a fresh open leaves: one uniqueness constraint per key and the three range indexes. */
const CURRENT_CONSTRAINTS = ['decision_id', 'meta_key', 'proficiency_id', 'run_id', 'specialist_id', 'step_id'];
const CURRENT_INDEXES = ['decision_run', 'run_started', 'step_run'];

/** The schema tests, inside a describe of neo4j.test.ts (one Neo4j per run of that file). */
export function defineNeo4jSchemaSuite(db: UsedNeo4j): void {
  async function dropSchema(): Promise<void> {
    for (const { name } of await db.cypher('SHOW CONSTRAINTS YIELD name'))
      await db.cypher(`DROP CONSTRAINT ${String(name)} IF EXISTS`);
    for (const { name } of await db.cypher("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"))
      await db.cypher(`DROP INDEX ${String(name)} IF EXISTS`);
  }
  const names = async (show: string) =>
    (await db.cypher(`${show} YIELD name, type WHERE type <> 'LOOKUP' RETURN name ORDER BY name`)).map((r) => r.name);
  /** Indexes that back no constraint (a uniqueness constraint brings an index of its own name). */
  const plainIndexes = async () =>
    (
      await db.cypher(
        "SHOW INDEXES YIELD name, type, owningConstraint WHERE type <> 'LOOKUP' AND owningConstraint IS NULL RETURN name ORDER BY name",
      )
    ).map((r) => r.name);

  beforeEach(async () => {
    await db.wipe();
    await dropSchema();
  });

  it('creates its constraints and indexes on an empty database, records the version, and opens again unchanged', async () => {
    const store = await openNeo4jStore(db.connection);
    await store.upsertSpecialists(ROSTER);
    await store.close();
    expect(await names('SHOW CONSTRAINTS')).toEqual(CURRENT_CONSTRAINTS);
    expect(await plainIndexes()).toEqual(CURRENT_INDEXES);
    expect(await db.cypher("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v")).toEqual([
      { v: String(NEO4J_SCHEMA_VERSION) },
    ]);

    const again = await openNeo4jStore(db.connection);
    expect((await again.listSpecialists()).length).toBe(ROSTER.length);
    await again.close();
    expect(await names('SHOW CONSTRAINTS')).toEqual(CURRENT_CONSTRAINTS);
  });

  it('migrates a version 1 graph: sources, tools, teams and approvals keep their records and relationships', async () => {
    for (const statement of [...VERSION_1_SCHEMA, ...VERSION_1_RECORDS]) await db.cypher(statement);
    expect(await names('SHOW INDEXES')).toContain('specialist_text');

    const store = await openNeo4jStore(db.connection);
    try {
      expect((await store.listSpecialists()).map((s) => s.id)).toEqual(['files']);
      expect(await store.listTools()).toEqual([
        {
          id: 'fs/read',
          server: 'fs',
          name: 'read',
          description: 'Reads a file.',
          inputSchema: { type: 'object' },
          annotations: { readOnlyHint: true },
          available: true,
          sourceId: 'mcp:fs',
        },
      ]);
      expect(await store.getSpecialist('fs/read')).toBeUndefined();
      expect(await store.getSpecialist('mcp:fs')).toBeUndefined();
      expect(await store.getSource('mcp:fs')).toEqual({
        id: 'mcp:fs',
        kind: 'mcp',
        location: 'fs',
        contentHash: 'h',
        ingestedAt: '2026-01-01T00:00:00.000Z',
        status: 'ok',
      });
      expect(await store.findTeamConfig('design a postgres schema for invoices', { callerId: 'tester' })).toMatchObject(
        { id: 'team:old', callerId: 'tester', uses: 5, successes: 4, avgScore: 0.8, specialists: ['files'] },
      );
      expect(await store.listApprovals('run-old')).toEqual([
        {
          id: 'a-old',
          runId: 'run-old',
          kind: 'tool',
          request: { tool: 'fs/read' },
          requestedAt: '2026-01-01T00:00:01.000Z',
          decision: { approved: true },
          resolvedBy: 'human',
          actor: 'key-1',
          resolvedAt: '2026-01-01T00:00:02.000Z',
        },
      ]);
      expect(await store.listDecisions(10, { callerId: 'tester' })).toEqual([
        {
          id: 'd-old',
          runId: 'run-old',
          callerId: 'tester',
          question: 'Ship?',
          verdict: {},
          decidedAt: '2026-01-01T00:00:03.000Z',
        },
      ]);
      expect(await store.getDecision('a-old')).toBeUndefined();
      expect((await store.getRun('run-old'))?.steps.map((s) => s.id)).toEqual(['s1']);
      expect((await store.getProficiency('files', 'specialist'))?.runs).toBe(3);
      expect(
        (await store.searchMemory('postgres schema invoices', 5, { callerId: 'tester' })).map((h) => h.runId),
      ).toEqual(['run-old']);

      // What it writes after the migration lands beside what it kept.
      await store.recordRun(
        run('Design a Postgres schema for invoices', [step('s1', 'files')], { callerId: 'tester', score: 0.9 }),
      );
      expect((await store.getProficiency('files', 'specialist'))?.runs).toBe(4);
    } finally {
      await store.close();
    }

    expect(
      await db.cypher('MATCH (n) WHERE n:Source OR n:Tool OR n:TeamConfig OR n:Approval RETURN count(n) AS n'),
    ).toEqual([{ n: 0 }]);
    expect(await db.cypher('MATCH ()-[h:HAS_APPROVAL]->() RETURN count(h) AS n')).toEqual([{ n: 0 }]);
    // Every relationship now ends at the relabelled nodes.
    expect(
      await db.cypher(
        `MATCH (s:Specialist {id: 'files'})-[:USES]->(t:Specialist {kind: 'tool'})-[:INGESTED_FROM]->(src:Specialist {kind: 'source'})
         MATCH (s)-[:INGESTED_FROM]->(src)
         MATCH (:Step {id: 'run-old/s1'})-[c:CALLED]->(t)
         RETURN t.id AS tool, src.id AS source, src.sourceKind AS sourceKind, c.status AS status`,
      ),
    ).toEqual([{ tool: 'fs/read', source: 'mcp:fs', sourceKind: 'mcp', status: 'ok' }]);
    expect(
      await db.cypher("MATCH (:Run {id: 'run-old'})-[:REUSED]->(t:Proficiency {kind: 'team'}) RETURN t.id AS id"),
    ).toEqual([{ id: 'team:old' }]);
    expect(
      await db.cypher(
        "MATCH (:Run {id: 'run-old'})-[:DECIDED]->(d:Decision) RETURN d.id AS id, d.kind AS kind ORDER BY id",
      ),
    ).toEqual([
      { id: 'a-old', kind: 'tool' },
      { id: 'd-old', kind: 'council' },
    ]);
    // Version 1's constraints on the old labels and both full-text indexes are gone.
    expect(await names('SHOW CONSTRAINTS')).toEqual(CURRENT_CONSTRAINTS);
    expect(await plainIndexes()).toEqual(CURRENT_INDEXES);
    expect(await db.cypher("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v")).toEqual([{ v: '2' }]);
  });

  it("opens a version 2 graph whose runs have no forkedFrom: they read with none, and a fork's record keeps its origin", async () => {
    // What a version 2 Parley wrote (before runs named their fork origin): its open, then one run.
    await (await openNeo4jStore(db.connection)).close();
    await db.cypher(
      `CREATE (:Run {id: 'run-v2', threadId: 't', query: 'Draft the release notes', protocol: 'sse', callerId: 'tester',
        startedAt: '2025-12-31T00:00:00.000Z', durationMs: 1.0, status: 'completed', answer: 'notes', tokens: 1.0,
        costUsd: 0.0, score: 0.8, searchText: 'draft release notes'})`,
    );

    const store = await openNeo4jStore(db.connection);
    try {
      const old = await store.getRun('run-v2');
      expect(old).toMatchObject({ id: 'run-v2', answer: 'notes' });
      expect(old).not.toHaveProperty('forkedFrom');
      const forkedFrom = { runId: 'run-v2', checkpoint: 'cp-3' };
      const fork = run('Draft the release notes, shorter', [], { plan: undefined, forkedFrom });
      await store.recordRun(fork);
      expect(await store.getRun(fork.id)).toEqual(fork);
      expect((await store.listRuns()).map((r) => ({ id: r.id, forkedFrom: r.forkedFrom }))).toEqual([
        { id: fork.id, forkedFrom },
        { id: 'run-v2', forkedFrom: undefined },
      ]);
    } finally {
      await store.close();
    }
    // A property needs no migration on Neo4j (labels have no declared columns): the version stays.
    expect(await db.cypher("MATCH (m:Meta {key: 'schemaVersion'}) RETURN m.value AS v")).toEqual([
      { v: String(NEO4J_SCHEMA_VERSION) },
    ]);
    expect(NEO4J_SCHEMA_VERSION).toBe(2);
    expect(await db.cypher("MATCH (r:Run {id: 'run-v2'}) RETURN r.forkedFrom AS f")).toEqual([{ f: null }]);
  });

  it('refuses a graph written by a newer schema, saying which, and changes nothing', async () => {
    await db.cypher("CREATE (:Meta {key: 'schemaVersion', value: '99'})");
    await expect(openNeo4jStore(db.connection)).rejects.toThrow(
      /schema version 99, newer than this Parley understands \(2\)/,
    );
    expect(await names('SHOW CONSTRAINTS')).toEqual([]);
  });

  it('says where it could not connect, naming the variables to check', async () => {
    const closed = { ...db.connection, uri: 'bolt://127.0.0.1:1' };
    await expect(openNeo4jStore(closed)).rejects.toThrow(/Cannot reach Neo4j at bolt:\/\/127\.0\.0\.1:1 .*NEO4J_URI/s);
  });
}
