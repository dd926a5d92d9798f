/**
 * The port a Cypher backend implements for the shared store logic: how to run a consistent read and
 * an atomic write. Rows are plain objects (nodes as their property objects) whatever the driver.
 */
export type Params = Record<string, unknown>;
export type Row = Record<string, unknown>;
/** Runs one parameterised statement; rows are plain objects (nodes as their property objects). */
export type RunStatement = (statement: string, params?: Params) => Promise<Row[]>;

export interface CypherExecutor {
  /** Consistent read. */
  read<T>(fn: (run: RunStatement) => Promise<T>): Promise<T>;
  /** Atomic write: all statements or none. May run fn again on a transient error (so fn only touches the database). */
  write<T>(fn: (run: RunStatement) => Promise<T>): Promise<T>;
  /**
   * True when writes run one at a time through this executor and nothing else writes the database
   * (embedded Kuzu: one connection, a file lock). The store's view is then authoritative for team
   * and proficiency statistics, so recording a run needs no locking reads.
   */
  serialWrites?: boolean;
  close(): Promise<void>;
}

/** A node column of a row, as its property object. */
export const nodeOf = (row: Row, key: string) => row[key] as Record<string, never>;
