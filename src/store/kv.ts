/**
 * The embedded key-value environment behind the run store (docs/durability.md): one LMDB environment in
 * `<data dir>/store`, with a named database per record kind (runs, events, approvals, threads, A2A tasks,
 * sessions, …). Each part of the store opens its own database here; none shares keys with another.
 *
 * LMDB was chosen because it installs from npm with a prebuilt binary, is safe across processes (the
 * editor bridges of docs/editors.md), and a committed write survives kill -9 (it is in the OS page
 * cache the moment the commit returns). With the data dir `:memory:` the environment lives in a fresh
 * temporary folder removed on close, so tests and `parley run` beside a server get the same code path.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

export interface Kv {
  /** A named database of structured values (msgpack), keyed by strings or ordered key arrays. */
  db<V = unknown>(name: string): Database<V, KvKey>;
  /** The folder holding the environment (a temporary one for `:memory:`). */
  readonly path: string;
  close(): Promise<void>;
}

export type KvKey = string | number | (string | number)[];

export function openKv(dataDir: string): Kv {
  const temporary = dataDir === ':memory:';
  const path = temporary ? mkdtempSync(join(tmpdir(), 'parley-store-')) : resolve(dataDir, 'store');
  mkdirSync(path, { recursive: true });
  const root: RootDatabase = open({ path, maxDbs: 64 });
  const opened = new Map<string, Database<unknown, KvKey>>();
  return {
    path,
    db<V>(name: string) {
      let db = opened.get(name);
      if (!db) {
        db = root.openDB<unknown, KvKey>({ name });
        opened.set(name, db);
      }
      return db as Database<V, KvKey>;
    },
    async close() {
      await root.close();
      if (temporary) rmSync(path, { recursive: true, force: true });
    },
  };
}
