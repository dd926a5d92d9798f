/**
 * The RunStore contract on Postgres (a real server: test/support/postgres.ts), each test on its own
 * schema; plus what only Postgres has: versioned migrations under an advisory lock, idempotent and safe
 * when two processes start at once, refusing a schema newer than the code; and a write committed
 * through one pool is seen through another (a second replica).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { migrate } from '../../../src/store/postgres/migrate.ts';
import { MIGRATIONS } from '../../../src/store/postgres/migrations.ts';
import { openPool } from '../../../src/store/postgres/pool.ts';
import { openPostgresRunStore } from '../../../src/store/postgres/run-store.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { defineRunStoreContract } from './run-store.contract.ts';

const available = postgresBinDir() !== undefined;
if (!available) console.log(`postgres-run-store.test.ts: ${POSTGRES_MISSING}`);

let server: TestPostgres;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  if (available) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  for (const p of pools.splice(0)) await p.end().catch(() => undefined);
  await server?.stop();
});

const schemaName = () => `t_${randomUUID().replaceAll('-', '')}`;

async function poolOn(schema: string): Promise<pg.Pool> {
  const pool = await openPool({ url: server.url, schema });
  pools.push(pool);
  return pool;
}

describe.skipIf(!available)('Postgres run store', () => {
  defineRunStoreContract({
    place: schemaName,
    open: async (schema) => {
      const pool = await openPool({ url: server.url, schema });
      await migrate(pool);
      return openPostgresRunStore(pool);
    },
    remove: async (schema) => {
      const pool = await poolOn('public');
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  });

  it('migrates once: a second run applies nothing; three processes migrating at once all succeed', async () => {
    // Several rounds: a race (CREATE … IF NOT EXISTS from two sessions at once) shows only sometimes.
    for (let round = 0; round < 5; round++) {
      const schema = schemaName();
      const [a, b, c] = await Promise.all([poolOn(schema), poolOn(schema), poolOn(schema)]);
      const results = await Promise.all([migrate(a), migrate(b), migrate(c)]);
      expect(results.flat().sort((x, y) => x - y)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migrate(a)).toEqual([]);
      const { rows } = await a.query<{ version: number }>('SELECT version FROM parley_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    }
  });

  it('refuses a database migrated by a newer Parley, naming the versions', async () => {
    const pool = await poolOn(schemaName());
    await migrate(pool);
    await pool.query(`INSERT INTO parley_migrations (version, name) VALUES (9999, 'from the future')`);
    await expect(migrate(pool)).rejects.toThrow(/newer Parley \(schema version 9999; this one knows up to \d+\)/);
  });

  it('a run written through one pool is read through another (a second replica)', async () => {
    const schema = schemaName();
    const writer = openPostgresRunStore(await poolOn(schema), { closePool: false });
    await migrate(pools.at(-1)!);
    const reader = openPostgresRunStore(await poolOn(schema), { closePool: false });
    const run = {
      id: 'r1',
      callerId: 'alice',
      threadId: 't',
      status: 'running' as const,
      request: { query: 'q', protocol: 'sse' },
      createdAt: 1,
      updatedAt: 1,
    };
    await writer.runs.put(run);
    await writer.events.append('r1', [{ seq: 1, type: 'run.started' }]);
    await writer.approvals.putPending({
      id: 'a1',
      runId: 'r1',
      callerId: 'alice',
      request: { kind: 'tool' },
      updatedAt: 1,
    });
    expect(await reader.runs.get('r1')).toEqual(run);
    expect(await reader.events.read('r1')).toEqual([{ seq: 1, type: 'run.started' }]);
    expect((await reader.approvals.listPending()).map((a) => a.id)).toEqual(['a1']);
  });
});
