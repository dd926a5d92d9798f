/**
 * What coordination costs, read from the servers themselves (bench/replicas.ts): Redis commands by
 * name (`INFO commandstats`, counted as Redis executes them, so at once; a command a Lua script runs
 * inside EVAL counts too, so round trips are the total less those: a lease's EVAL runs GET and SET or
 * DEL) and Postgres's write
 * transactions (the next transaction id: only a transaction that writes takes one), all committed and
 * rolled-back transactions, and rows inserted / updated / deleted, per table (pg_stat_database and
 * pg_stat_user_tables of the bench's database).
 *
 * Postgres 15 publishes a backend's statistics when it goes idle, at most once a second, and a busy
 * backend's last ones up to 10 s later (PGSTAT_IDLE_INTERVAL); so a reading of those is exact only
 * when taken after `STATS_SETTLE_MS` without load. The transaction id is exact at once.
 */
import pg from 'pg';
import { Redis } from 'ioredis';

export const STATS_SETTLE_MS = 11_000;

export interface Counters {
  redis: Record<string, number>;
  writeTransactions: number;
  transactions: number;
  rows: Record<string, { inserted: number; updated: number; deleted: number }>;
}

export interface CounterReader {
  read(): Promise<Counters>;
  close(): Promise<void>;
}

export async function counterReader(postgresUrl: string, redisUrl: string): Promise<CounterReader> {
  const db = new pg.Client({ connectionString: postgresUrl });
  await db.connect();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  return {
    async read() {
      const stats = await redis.info('commandstats');
      const byCommand: Record<string, number> = {};
      for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        // INFO is this reader's own; the rest is what the replicas (and ioredis's connect) sent.
        if (m[1] !== 'info') byCommand[m[1]!] = Number(m[2]);
      }
      const next = await db.query<{ xid: string }>(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid`);
      const database = await db.query<{ commits: string; rollbacks: string }>(
        `SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = current_database()`,
      );
      const tables = await db.query<{ name: string; ins: string; upd: string; del: string }>(
        `SELECT relname AS name, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables`,
      );
      const rows: Counters['rows'] = {};
      for (const t of tables.rows) {
        rows[t.name] = { inserted: Number(t.ins), updated: Number(t.upd), deleted: Number(t.del) };
      }
      const d = database.rows[0]!;
      return {
        redis: byCommand,
        writeTransactions: Number(next.rows[0]!.xid),
        transactions: Number(d.commits) + Number(d.rollbacks),
        rows,
      };
    },
    async close() {
      redis.disconnect();
      await db.end();
    },
  };
}

/** after − before, every counter. */
export function difference(before: Counters, after: Counters): Counters {
  const redis: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after.redis)) {
    const added = calls - (before.redis[name] ?? 0);
    if (added > 0) redis[name] = added;
  }
  const rows: Counters['rows'] = {};
  for (const [name, r] of Object.entries(after.rows)) {
    const b = before.rows[name] ?? { inserted: 0, updated: 0, deleted: 0 };
    const added = { inserted: r.inserted - b.inserted, updated: r.updated - b.updated, deleted: r.deleted - b.deleted };
    if (added.inserted || added.updated || added.deleted) rows[name] = added;
  }
  return {
    redis,
    writeTransactions: after.writeTransactions - before.writeTransactions,
    transactions: after.transactions - before.transactions,
    rows,
  };
}

export const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
