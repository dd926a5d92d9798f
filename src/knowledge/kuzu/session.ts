/**
 * One Kuzu database + connection with the lifecycle Parley needs: open (translating Kuzu's file
 * lock error), a queue so statements never overlap on the connection, cached prepared statements,
 * and explicit transactions.
 */
import kuzu from 'kuzu';
import type { Connection, Database, KuzuValue, PreparedStatement, QueryResult } from 'kuzu';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreLockedError } from '../errors.ts';

export type Row = Record<string, KuzuValue>;
export type Params = Record<string, KuzuValue>;

/**
 * WAL size (bytes) at which Kuzu checkpoints on its own. Kuzu holds every committed but not yet
 * checkpointed change in native memory (malloc'd, not the buffer pool), and glibc keeps the peak
 * after a checkpoint frees it; with Kuzu's default of 16 MiB that peak is ~300 MiB for ~1,000
 * recorded runs. 4 MiB bounds it at about a quarter of that for a few ms more per run (docs/knowledge.md, Memory).
 */
export const CHECKPOINT_THRESHOLD_BYTES = 4 * 1024 * 1024;

export interface SessionOptions {
  /**
   * Kuzu's buffer pool; 0 or unset = Kuzu's default, 80% of RAM. The server passes
   * PARLEY_KUZU_BUFFER_POOL_MB: Kuzu keeps bookkeeping per page of the pool (~40 MB resident for
   * 80% of 24 GB), and a process an editor spawns should not claim most of the machine.
   */
  bufferPoolBytes?: number;
  /** Overrides CHECKPOINT_THRESHOLD_BYTES. */
  checkpointThresholdBytes?: number;
  /** Also checkpoint after every n-th committed write transaction (0 = never). */
  checkpointEveryWrites?: number;
}

export class KuzuSession {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #prepared = new Map<string, PreparedStatement>();
  #closed = false;
  #writes = 0;

  readonly #db: Database;
  readonly #conn: Connection;
  readonly #checkpointEvery: number;

  private constructor(db: Database, conn: Connection, checkpointEvery: number) {
    this.#db = db;
    this.#conn = conn;
    this.#checkpointEvery = checkpointEvery;
  }

  static async open(path: string, options: SessionOptions = {}): Promise<KuzuSession> {
    const inMemory = path === ':memory:';
    if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
    const threshold = options.checkpointThresholdBytes ?? CHECKPOINT_THRESHOLD_BYTES;
    const bufferPool = options.bufferPoolBytes ?? 0;
    // Compression on; read-write; 0 = Kuzu's default maximum database size; auto-checkpoint on.
    const db = new kuzu.Database(path, bufferPool, true, false, 0, true, threshold);
    try {
      await db.init();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/lock/i.test(message)) throw new StoreLockedError(resolve(path), message);
      throw new Error(`Cannot open the Kuzu database at ${path}: ${message}`);
    }
    const conn = new kuzu.Connection(db);
    await conn.init();
    return new KuzuSession(db, conn, options.checkpointEveryWrites ?? 0);
  }

  /** Runs fn with exclusive use of the connection. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    // The queue only orders calls: each caller gets its own error through `run`.
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** One statement, already inside exclusive(); parameters are always bound, never interpolated. */
  async run(statement: string, params: Params = {}): Promise<Row[]> {
    if (this.#closed) throw new Error('The knowledge store is closed');
    let stmt = this.#prepared.get(statement);
    if (!stmt) {
      stmt = await this.#conn.prepare(statement);
      if (!stmt.isSuccess()) throw new Error(`Kuzu rejected a statement: ${stmt.getErrorMessage()}\n${statement}`);
      this.#prepared.set(statement, stmt);
    }
    const result = await this.#conn.execute(stmt, params);
    return rowsOf(result);
  }

  /** A statement without parameters (DDL, CALL ...), inside exclusive(). */
  async ddl(statement: string): Promise<Row[]> {
    return rowsOf(await this.#conn.query(statement));
  }

  query(statement: string, params: Params = {}): Promise<Row[]> {
    return this.exclusive(() => this.run(statement, params));
  }

  /** Runs fn in one write transaction: all of it or none of it. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await rowsOf(await this.#conn.query('BEGIN TRANSACTION'));
      try {
        const value = await fn();
        await rowsOf(await this.#conn.query('COMMIT'));
        if (this.#checkpointEvery > 0 && ++this.#writes % this.#checkpointEvery === 0)
          await rowsOf(await this.#conn.query('CHECKPOINT'));
        return value;
      } catch (err) {
        await this.#conn.query('ROLLBACK').then(rowsOf, () => undefined);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.exclusive(async () => {
      this.#closed = true;
      this.#prepared.clear();
      await this.#conn.close();
      await this.#db.close();
    });
  }
}

async function rowsOf(result: QueryResult | QueryResult[]): Promise<Row[]> {
  const results = Array.isArray(result) ? result : [result];
  const rows: Row[] = [];
  try {
    for (const r of results) rows.push(...(await r.getAll()));
  } finally {
    // Closed explicitly: a result finalised by GC after its database closed crashes the process.
    for (const r of results) r.close();
  }
  return rows;
}
