/**
 * `useNeo4j()`: one real Neo4j (test/support/neo4j.ts) for the test file, started in beforeAll and
 * stopped in afterAll, its version printed once; `wipe()` empties it between tests. Call it only when
 * neo4jMissing() is undefined (the file skips otherwise).
 */
import { afterAll, beforeAll, vi } from 'vitest';
import neo4j from 'neo4j-driver';
import { openNeo4jStore } from '../../src/knowledge/neo4j/store.ts';
import { startNeo4j, type StartNeo4jOptions, type TestNeo4j } from './neo4j.ts';
import { ROSTER, run, step, tool } from './records.ts';

/** Under load the JVM's start alone has taken 75 s here; the first build downloads Neo4j too. */
export const NEO4J_HOOK_TIMEOUT_MS = 600_000;
/**
 * A test's own limit in a Neo4j file. Under this machine's load (2 cores, load average 20-30) a statement
 * Neo4j has not planned yet has taken seconds, and the migration test (two dozen new statements) 87 s.
 */
export const NEO4J_TEST_TIMEOUT_MS = 240_000;

/**
 * Plans and compiles what every test runs (the store's schema statements, the registry and run writes,
 * the reads) once, in the hook, so a cold JVM's first minute is not charged to whichever test comes
 * first. Neo4j keeps its plans when the data is deleted.
 */
async function warmUp(connection: UsedNeo4j['connection']): Promise<void> {
  const store = await openNeo4jStore(connection);
  try {
    await store.upsertSource({
      id: 'mcp:warm',
      kind: 'mcp',
      location: 'warm',
      contentHash: 'h',
      ingestedAt: '2026-01-01T00:00:00.000Z',
      status: 'ok',
    });
    await store.upsertTools([tool('warm', 'read')]);
    await store.upsertSpecialists(ROSTER);
    await store.markGone('mcp:warm', [], []);
    const recorded = run('warm up the planner', [step('s1', 'database')]);
    await store.recordRun(recorded);
    await store.recordRun(recorded);
    await store.recordDecision({
      id: 'warm',
      runId: recorded.id,
      question: 'Warm?',
      verdict: {
        recommendation: '',
        keyInsights: [],
        blindSpots: [],
        consensus: '',
        dissent: '',
        nextStep: '',
        confidence: 1,
      },
      decidedAt: '2026-01-01T00:00:00.000Z',
    });
    await Promise.all([
      store.getRun(recorded.id),
      store.listRuns({ limit: 5 }),
      store.listDecisions(5),
      store.getSource('mcp:warm'),
      store.listTools(),
      store.searchMemory('warm planner', 3),
    ]);
  } finally {
    await store.close();
  }
}

export interface UsedNeo4j {
  /** The running server (set once beforeAll has run). */
  readonly server: TestNeo4j;
  /** The connection options of openNeo4jStore and of Parley's NEO4J_* variables. */
  readonly connection: { uri: string; user: string; password: string; database: string };
  /** Deletes every node and relationship (the schema stays, as a store's open re-creates it anyway). */
  wipe(): Promise<void>;
  /** One Cypher statement in its own transaction, for what a test sets up or checks behind the store. */
  cypher(statement: string, params?: Record<string, unknown>): Promise<Record<string, unknown>[]>;
}

export function useNeo4j(options: StartNeo4jOptions = {}): UsedNeo4j {
  vi.setConfig({ testTimeout: NEO4J_TEST_TIMEOUT_MS });
  let server: TestNeo4j | undefined;
  const started = () => {
    if (!server) throw new Error('useNeo4j: the server is not started yet (use it inside a test or a hook)');
    return server;
  };
  const cypher = async (statement: string, params: Record<string, unknown> = {}) => {
    const s = started();
    const driver = neo4j.driver(s.uri, neo4j.auth.basic(s.user, s.password), { disableLosslessIntegers: true });
    try {
      const { records } = await driver.executeQuery(statement, params, { database: s.database });
      return records.map((record) => record.toObject());
    } finally {
      await driver.close();
    }
  };
  beforeAll(async () => {
    const t0 = Date.now();
    server = await startNeo4j(options);
    const up = Date.now();
    await warmUp(used.connection);
    await used.wipe();
    console.info(
      `Neo4j ${server.version} (test harness) at ${server.uri}: started in ${up - t0} ms, warmed up in ${Date.now() - up} ms`,
    );
  }, NEO4J_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);
  const used: UsedNeo4j = {
    get server() {
      return started();
    },
    get connection() {
      const s = started();
      return { uri: s.uri, user: s.user, password: s.password, database: s.database };
    },
    async wipe() {
      await cypher('MATCH (n) DETACH DELETE n');
    },
    cypher,
  };
  return used;
}
