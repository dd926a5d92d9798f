/**
 * The embedded default KnowledgeStore on Kuzu: a single database file (or :memory: in tests),
 * schema created/migrated at open, Kuzu's full-text index (statically linked, works offline)
 * for retrieval and memory search.
 */
import type { KnowledgeStore } from '../store.ts';
import { DEFAULT_REGISTRY_OPTIONS, type RegistryOptions } from '../registry.ts';
import { CypherStore } from '../cypher-store.ts';
import type { CypherExecutor, Row } from '../cypher/executor.ts';
import type { KuzuSession, Params } from './session.ts';
import { openMigrated } from './migrate-on-copy.ts';
import { bindParams } from './params.ts';
import { Q } from './queries.ts';

/**
 * Kuzu holds what a run of small write transactions changed in native memory until it checkpoints (at
 * the WAL threshold); a CHECKPOINT after an ingestion hands it back: ~24 MB after the first ingestion of
 * the shipped sources (docs/performance.md, "Listen first").
 */
export interface Checkpointing {
  checkpoint(): Promise<void>;
}

export interface KuzuStoreOptions extends Partial<RegistryOptions> {
  /** Database file path, or ':memory:'. */
  path: string;
  /** How many of the most recent runs searchMemory searches (in memory). Default 5000. */
  memoryWindow?: number;
  /** Kuzu's buffer pool in bytes (default: Kuzu's, 80% of RAM; the server passes PARLEY_KUZU_BUFFER_POOL_MB). */
  bufferPoolBytes?: number;
  /** WAL size at which Kuzu checkpoints; bounds native memory (see CHECKPOINT_THRESHOLD_BYTES). */
  checkpointThresholdBytes?: number;
  /** Also checkpoint after every n-th write transaction (0 = never). */
  checkpointEveryWrites?: number;
}

export async function openKuzuStore(options: KuzuStoreOptions): Promise<KnowledgeStore & Checkpointing> {
  // An older file is migrated on a copy that replaces it once migrated (migrate-on-copy.ts).
  const session = await openMigrated(options.path, {
    bufferPoolBytes: options.bufferPoolBytes,
    checkpointThresholdBytes: options.checkpointThresholdBytes,
    checkpointEveryWrites: options.checkpointEveryWrites,
  });
  const registry: RegistryOptions = {
    teamMatchThreshold: options.teamMatchThreshold ?? DEFAULT_REGISTRY_OPTIONS.teamMatchThreshold,
    teamMinSuccessRate: options.teamMinSuccessRate ?? DEFAULT_REGISTRY_OPTIONS.teamMinSuccessRate,
  };
  const store = new CypherStore(kuzuExecutor(session), Q, registry, {
    refreshMs: Infinity,
    memoryWindow: options.memoryWindow,
  });
  return Object.assign(store, { checkpoint: () => session.query('CHECKPOINT').then(() => undefined) });
}

/**
 * The executor CypherStore runs on. Exported so tests can open a second, read-only store on one
 * database (like another process on one Neo4j); only one store may write through it (serialWrites).
 */
export function kuzuExecutor(session: KuzuSession): CypherExecutor {
  const run = (statement: string, params?: Record<string, unknown>) =>
    session.run(statement, bindParams(statement, params) as Params) as Promise<Row[]>;
  return {
    // One connection, serialised: a read is just exclusive use of it.
    read: (fn) => session.exclusive(() => fn(run)),
    write: (fn) => session.transaction(() => fn(run)),
    // One connection, every write queued on it, and the file locked to this process.
    serialWrites: true,
    close: () => session.close(),
  };
}
