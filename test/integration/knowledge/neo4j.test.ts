/**
 * The KnowledgeStore contract on a real Neo4j (issue 45): the harness of test/support/neo4j.ts on a
 * free loopback port, emptied before each test. Skips, saying so, only where no JDK 21+ (or Maven to
 * build the harness) is found; CI has both.
 */
import { describe, it } from 'vitest';
import { openNeo4jStore } from '../../../src/knowledge/neo4j/store.ts';
import { neo4jMissing } from '../../support/neo4j.ts';
import { useNeo4j } from '../../support/use-neo4j.ts';
import { defineStoreContract } from './store.contract.ts';

const missing = neo4jMissing();
if (missing) console.info(`Neo4j contract tests ${missing}`);

describe.skipIf(!!missing)('KnowledgeStore contract: Neo4j', () => {
  const db = useNeo4j();
  defineStoreContract(async (extra) => {
    await db.wipe();
    return openNeo4jStore({ ...db.connection, ...extra });
  });
});

// Registered only where it skips: elsewhere the run has nothing skipped.
if (missing) describe('KnowledgeStore contract: Neo4j', () => it.skip(missing, () => {}));
