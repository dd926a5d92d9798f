/**
 * KnowledgeStore on Neo4j (neo4j-driver), used when NEO4J_URI is set. Constraints and indexes are
 * created idempotently at open; every statement is parameterised and lives in ./queries.ts; every
 * session is closed in a finally; writes use managed transactions (retried on transient errors).
 */
import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import type { KnowledgeStore } from '../store.ts';
import { DEFAULT_REGISTRY_OPTIONS, type RegistryOptions } from '../registry.ts';
import { CypherStore } from '../cypher-store.ts';
import type { CypherExecutor, Params, Row, RunStatement } from '../cypher/executor.ts';
import { SchemaVersionError, StoreUnavailableError } from '../errors.ts';
import { MIGRATE_TO_2, Q, READ_SCHEMA_VERSION, SCHEMA, WRITE_SCHEMA_VERSION } from './queries.ts';

export const NEO4J_SCHEMA_VERSION = 2;

export interface Neo4jStoreOptions extends Partial<RegistryOptions> {
  uri: string;
  user: string;
  password: string;
  database: string;
  /**
   * How often the in-memory view (specialists, proficiencies, team statistics) re-reads Neo4j for
   * what other Parley processes wrote; this process's own writes are seen at once. Default 5000.
   */
  viewRefreshMs?: number;
  /** How many of the most recent runs searchMemory searches (in memory, refreshed with the view). Default 5000. */
  memoryWindow?: number;
}

export const NEO4J_VIEW_REFRESH_MS = 5000;

export async function openNeo4jStore(options: Neo4jStoreOptions): Promise<KnowledgeStore> {
  const driver = neo4j.driver(options.uri, neo4j.auth.basic(options.user, options.password), {
    // Plain JS numbers: counts and durations stay far below 2^53.
    disableLosslessIntegers: true,
    connectionTimeout: 10_000,
  });
  try {
    await driver.verifyConnectivity({ database: options.database });
  } catch (err) {
    await driver.close();
    throw new StoreUnavailableError(
      `Cannot reach Neo4j at ${options.uri} (database "${options.database}", user "${options.user}"): ${(err as Error).message}. ` +
        'Check NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE, or unset NEO4J_URI to use the embedded Kuzu store.',
    );
  }
  const exec = neo4jExecutor(driver, options.database);
  try {
    await migrate(driver, options.database, exec);
  } catch (err) {
    await driver.close();
    throw err;
  }
  const registry: RegistryOptions = {
    teamMatchThreshold: options.teamMatchThreshold ?? DEFAULT_REGISTRY_OPTIONS.teamMatchThreshold,
    teamMinSuccessRate: options.teamMinSuccessRate ?? DEFAULT_REGISTRY_OPTIONS.teamMinSuccessRate,
  };
  return new CypherStore(exec, Q, registry, {
    refreshMs: options.viewRefreshMs ?? NEO4J_VIEW_REFRESH_MS,
    memoryWindow: options.memoryWindow,
  });
}

async function migrate(driver: Driver, database: string, exec: CypherExecutor): Promise<void> {
  const rows = await exec.read((run) => run(READ_SCHEMA_VERSION));
  const current = rows[0] ? Number(rows[0].v) : 0;
  if (current > NEO4J_SCHEMA_VERSION) {
    throw new SchemaVersionError(
      `The Neo4j knowledge graph has schema version ${current}, newer than this Parley understands (${NEO4J_SCHEMA_VERSION}).`,
    );
  }
  // Schema statements cannot share a transaction with data writes: one auto-commit each.
  const session = driver.session({ database });
  try {
    for (const statement of SCHEMA) await session.run(statement);
  } finally {
    await session.close();
  }
  // The data steps and the version in one transaction: a crash leaves version 1, and this runs again.
  if (current < NEO4J_SCHEMA_VERSION)
    await exec.write(async (run) => {
      if (current === 1) for (const statement of MIGRATE_TO_2) await run(statement);
      await run(WRITE_SCHEMA_VERSION, { v: String(NEO4J_SCHEMA_VERSION) });
    });
}

function neo4jExecutor(driver: Driver, database: string): CypherExecutor {
  const runner =
    (tx: ManagedTransaction): RunStatement =>
    async (statement, params = {}) => {
      const result = await tx.run(statement, toNeo4jParams(params));
      return result.records.map((record) => {
        const row: Row = {};
        for (const key of record.keys) row[String(key)] = plain(record.get(key));
        return row;
      });
    };
  return {
    async read(fn) {
      const session = driver.session({ database, defaultAccessMode: neo4j.session.READ });
      try {
        return await session.executeRead((tx) => fn(runner(tx)));
      } finally {
        await session.close();
      }
    },
    async write(fn) {
      const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
      try {
        return await session.executeWrite((tx) => fn(runner(tx)));
      } finally {
        await session.close();
      }
    },
    close: () => driver.close(),
  };
}

/** LIMIT and SKIP need Cypher integers; JS numbers are sent as floats. */
function toNeo4jParams(params: Params): Params {
  const out: Params = { ...params };
  if (typeof out.limit === 'number') out.limit = neo4j.int(out.limit);
  return out;
}

/** Nodes become their property objects, as the Kuzu executor hands them over. */
function plain(value: unknown): unknown {
  if (neo4j.isNode(value as never)) return { ...(value as { properties: Record<string, unknown> }).properties };
  return value;
}
