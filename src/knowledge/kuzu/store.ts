/**
 * The embedded default KnowledgeStore on Kuzu: a single database file (or :memory: in tests),
 * schema created/migrated at open, Kuzu's full-text index (statically linked, works offline)
 * for retrieval and memory search.
 */
import type { KnowledgeStore } from '../store.ts';
import { DEFAULT_REGISTRY_OPTIONS, type RegistryOptions } from '../registry.ts';
import { CypherStore } from '../cypher-store.ts';
import type { CypherExecutor, Row } from '../cypher/executor.ts';
import { KuzuSession, type Params } from './session.ts';
import { migrate } from './schema.ts';
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
  const session = await KuzuSession.open(options.path, {
    bufferPoolBytes: options.bufferPoolBytes,
    checkpointThresholdBytes: options.checkpointThresholdBytes,
    checkpointEveryWrites: options.checkpointEveryWrites,
  });
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
  const store = new CypherStore(kuzuExecutor(session), Q, registry, {
    refreshMs: Infinity,
    memoryWindow: options.memoryWindow,
  });
  return Object.assign(store, { checkpoint: () => session.query('CHECKPOINT').then(() => undefined) });
}

/**
 * Kuzu 0.11.3 crashes the process (SIGSEGV) when an empty list is bound as a parameter. Every
 * list parameter of ours is a set of ids used with IN (UNWIND lists are never sent empty), so an
 * empty one is sent as a list holding one id no record can have.
 */
const NO_ID = '\u0000';

/**
 * Kuzu types a list parameter by its first element (kuzu's node binding: LIST(type of element 0)),
 * and a JS number binds as INT64 when whole, DOUBLE otherwise. So in a list of objects a field
 * that is 0 in the first element and 0.5 in another reads back the double's bits as an integer
 * (0.5 → 4602678819172646912), and a null in the first element types the field STRING. Every
 * number inside a list of objects therefore travels as its exact decimal string, and the
 * statements CAST it back to the column's type (kuzu/queries.ts).
 */
function bindValue(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  if (v.length === 0) return [NO_ID];
  if (typeof v[0] !== 'object' || v[0] === null) return v;
  return v.map((item: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(item)) out[key] = typeof field === 'number' ? String(field) : field;
    return out;
  });
}

const bindable = (params: Record<string, unknown> = {}): Params =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, bindValue(v)])) as Params;

/**
 * The executor CypherStore runs on. Exported so tests can open a second, read-only store on one
 * database (like another process on one Neo4j); only one store may write through it (serialWrites).
 */
export function kuzuExecutor(session: KuzuSession): CypherExecutor {
  const run = (statement: string, params?: Record<string, unknown>) =>
    session.run(statement, bindable(params)) as Promise<Row[]>;
  return {
    // One connection, serialised: a read is just exclusive use of it.
    read: (fn) => session.exclusive(() => fn(run)),
    write: (fn) => session.transaction(() => fn(run)),
    // One connection, every write queued on it, and the file locked to this process.
    serialWrites: true,
    close: () => session.close(),
  };
}
