/** Opens the configured KnowledgeStore: Neo4j when NEO4J_URI is set, else embedded Kuzu under PARLEY_DATA_DIR. */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { KnowledgeStore } from './store.ts';

/** The Kuzu database file inside the data dir. */
export const KUZU_FILE = 'knowledge.kuzu';

/** Each backend is imported only when chosen: the Neo4j driver (with rxjs) is ~400 modules a Kuzu start never needs. */
export async function openKnowledgeStore(
  knowledge: Config['knowledge'],
  store: Pick<Config['store'], 'dataDir'>,
): Promise<KnowledgeStore> {
  const registry = {
    teamMatchThreshold: knowledge.teamMatchThreshold,
    teamMinSuccessRate: knowledge.teamMinSuccessRate,
    memoryWindow: knowledge.memoryWindow,
  };
  if (knowledge.neo4j) {
    const { openNeo4jStore } = await import('./neo4j/store.ts');
    return openNeo4jStore({ ...knowledge.neo4j, ...registry });
  }
  const { openKuzuStore } = await import('./kuzu/store.ts');
  const path = store.dataDir === ':memory:' ? ':memory:' : join(store.dataDir, KUZU_FILE);
  return openKuzuStore({ path, ...registry, bufferPoolBytes: knowledge.bufferPoolBytes });
}

/** Writes what the store holds in memory to its files and frees that memory, when the backend can (Kuzu). */
export async function checkpointStore(store: KnowledgeStore): Promise<void> {
  const checkpoint = (store as Partial<{ checkpoint(): Promise<void> }>).checkpoint;
  if (typeof checkpoint === 'function') await checkpoint.call(store);
}
