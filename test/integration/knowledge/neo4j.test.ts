/**
 * Parley's knowledge graph on a real Neo4j (issue 45): one server for the file, the harness of
 * test/support/neo4j.ts on a free loopback port (JVM start and warm-up are its beforeAll), emptied
 * before each test. The KnowledgeStore contract every backend runs (store.contract.ts), the schema
 * and its migration (neo4j-schema.suite.ts) and hot reload across two processes (neo4j-reload.suite.ts):
 * one file, so a run starts one JVM, not three on two cores. Skips, saying so, only where no JDK 21+
 * (or Maven to build the harness) is found; CI has both.
 */
import { describe, it } from 'vitest';
import { openNeo4jStore } from '../../../src/knowledge/neo4j/store.ts';
import { neo4jMissing } from '../../support/neo4j.ts';
import { useNeo4j } from '../../support/use-neo4j.ts';
import { defineStoreContract } from './store.contract.ts';
import { defineNeo4jSchemaSuite } from './neo4j-schema.suite.ts';
import { defineNeo4jReloadSuite } from './neo4j-reload.suite.ts';

const missing = neo4jMissing();
if (missing) console.info(`Neo4j tests ${missing}`);

describe.skipIf(!!missing)('Neo4j', () => {
  const db = useNeo4j();
  describe('KnowledgeStore contract', () => {
    defineStoreContract(async (extra) => {
      await db.wipe();
      return openNeo4jStore({ ...db.connection, ...extra });
    });
  });
  describe('schema', () => defineNeo4jSchemaSuite(db));
  describe('hot reload on one Neo4j shared by two processes', () => defineNeo4jReloadSuite(db));
});

// Registered only where it skips: elsewhere the run has nothing skipped.
if (missing) describe('Neo4j', () => it.skip(missing, () => {}));
