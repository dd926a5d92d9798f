/** Opens the configured KnowledgeStore: Neo4j when NEO4J_URI is set, else embedded Kuzu under PARLEY_DATA_DIR. */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { KnowledgeStore } from './store.ts';
import { openKuzuStore } from './kuzu/store.ts';
import { openNeo4jStore } from './neo4j/store.ts';

/** The Kuzu database file inside the data dir. */
export const KUZU_FILE = 'knowledge.kuzu';

export function openKnowledgeStore(knowledge: Config['knowledge']): Promise<KnowledgeStore> {
  const registry = { teamMatchThreshold: knowledge.teamMatchThreshold, teamMinSuccessRate: knowledge.teamMinSuccessRate, memoryWindow: knowledge.memoryWindow };
  if (knowledge.neo4j) return openNeo4jStore({ ...knowledge.neo4j, ...registry });
  const path = knowledge.dataDir === ':memory:' ? ':memory:' : join(knowledge.dataDir, KUZU_FILE);
  return openKuzuStore({ path, ...registry });
}
