/**
 * The KnowledgeStore contract on Neo4j. Runs only when NEO4J_URI is set (with NEO4J_USER,
 * NEO4J_PASSWORD, NEO4J_DATABASE); it wipes that database's Parley labels before each test.
 */
import { describe, it } from 'vitest';
import neo4j from 'neo4j-driver';
import { openNeo4jStore } from '../../../src/knowledge/neo4j/store.ts';
import { defineStoreContract } from './store.contract.ts';

const uri = process.env.NEO4J_URI;
const options = {
  uri: uri ?? '',
  user: process.env.NEO4J_USER ?? 'neo4j',
  password: process.env.NEO4J_PASSWORD ?? '',
  database: process.env.NEO4J_DATABASE ?? 'neo4j',
};
const LABELS = ['Source', 'Specialist', 'Tool', 'Run', 'Step', 'TeamConfig', 'Proficiency', 'Approval', 'Decision'];

async function wipe(): Promise<void> {
  const driver = neo4j.driver(options.uri, neo4j.auth.basic(options.user, options.password));
  const session = driver.session({ database: options.database });
  try {
    await session.run('MATCH (n) WHERE any(l IN labels(n) WHERE l IN $labels) DETACH DELETE n', { labels: LABELS });
  } finally {
    await session.close();
    await driver.close();
  }
}

if (!uri) console.info('Neo4j contract tests skipped: NEO4J_URI is not set (set it to run them against a real Neo4j).');

describe.skipIf(!uri)('KnowledgeStore contract: Neo4j (NEO4J_URI)', () => {
  defineStoreContract(async (extra) => {
    await wipe();
    return openNeo4jStore({ ...options, ...extra });
  });
});

describe.runIf(!uri)('KnowledgeStore contract: Neo4j', () => {
  it.skip('skipped: NEO4J_URI is not set', () => {});
});
