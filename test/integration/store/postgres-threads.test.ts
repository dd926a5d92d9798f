/** The ThreadStore contract on Postgres (a real server: test/support/postgres.ts), each store on its own schema. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { migrate } from '../../../src/store/postgres/migrate.ts';
import { openPool } from '../../../src/store/postgres/pool.ts';
import { createPostgresThreadStore } from '../../../src/store/postgres/threads.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { threadStoreContract } from './threads.contract.ts';

const available = postgresBinDir() !== undefined;
if (!available) console.log(`postgres-threads.test.ts: ${POSTGRES_MISSING}`);

let server: TestPostgres;
beforeAll(async () => {
  if (available) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(!available)('Postgres thread store', () => {
  threadStoreContract('postgres', async (retention, now) => {
    const pool = await openPool({ url: server.url, schema: `t_${randomUUID().replaceAll('-', '')}` });
    await migrate(pool);
    return { store: createPostgresThreadStore(pool, retention, now), close: () => pool.end() };
  });
});
