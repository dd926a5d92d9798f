/**
 * The embedded default KnowledgeStore on Kuzu: a single database file (or :memory: in tests),
 * schema created/migrated at open, Kuzu's full-text index (statically linked, works offline)
 * for retrieval and memory search.
 */
import type { KnowledgeStore } from '../store.ts';
import { DEFAULT_REGISTRY_OPTIONS, type RegistryOptions } from '../registry.ts';
import { CypherStore, type CypherExecutor, type Row } from '../cypher-store.ts';
import { KuzuSession, type Params } from './session.ts';
import { migrate } from './schema.ts';
import { Q } from './queries.ts';

export interface KuzuStoreOptions extends Partial<RegistryOptions> {
  /** Database file path, or ':memory:'. */
  path: string;
}

export async function openKuzuStore(options: KuzuStoreOptions): Promise<KnowledgeStore> {
  const session = await KuzuSession.open(options.path);
  try {
    await migrate(session);
  } catch (err) {
    await session.close();
    throw err;
  }
  const registry: RegistryOptions = {
    teamMatchThreshold: options.teamMatchThreshold ?? DEFAULT_REGISTRY_OPTIONS.teamMatchThreshold,
    teamMinSuccessRate: options.teamMinSuccessRate ?? DEFAULT_REGISTRY_OPTIONS.teamMinSuccessRate,
  };
  return new CypherStore(kuzuExecutor(session), Q, registry);
}

function kuzuExecutor(session: KuzuSession): CypherExecutor {
  const run = (statement: string, params?: Record<string, unknown>) => session.run(statement, params as Params) as Promise<Row[]>;
  return {
    // One connection, serialised: a read is just exclusive use of it.
    read: (fn) => session.exclusive(() => fn(run)),
    write: (fn) => session.transaction(() => fn(run)),
    close: () => session.close(),
  };
}
