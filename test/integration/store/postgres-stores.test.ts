/**
 * The ThreadStore, AcpSessionStore, MCP event store, A2ATaskStore and A2APushStore contracts on Postgres (a real server:
 * test/support/postgres.ts), each store on its own schema.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { migrate } from '../../../src/store/postgres/migrate.ts';
import { openPool } from '../../../src/store/postgres/pool.ts';
import { createPostgresThreadStore } from '../../../src/store/postgres/threads.ts';
import { createPostgresAcpSessionStore } from '../../../src/store/postgres/acp-sessions.ts';
import { createPostgresA2aPushStore } from '../../../src/store/postgres/a2a-push.ts';
import { acpSessionStoreContract } from './acp-sessions.contract.ts';
import { a2aPushStoreContract } from './a2a-push.contract.ts';
import { createPostgresA2aTaskStore } from '../../../src/store/postgres/a2a-tasks.ts';
import { a2aTaskStoreContract } from './a2a-tasks.contract.ts';
import { createPostgresMcpEventStore } from '../../../src/store/postgres/mcp-events.ts';
import { mcpEventStoreContract } from './mcp-events.contract.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { threadStoreContract } from './threads.contract.ts';

const available = postgresBinDir() !== undefined;
if (!available) console.log(`postgres-stores.test.ts: ${POSTGRES_MISSING}`);

let server: TestPostgres;
beforeAll(async () => {
  if (available) server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function migratedPool() {
  const pool = await openPool({ url: server.url, schema: `t_${randomUUID().replaceAll('-', '')}` });
  await migrate(pool);
  return pool;
}

describe.skipIf(!available)('Postgres stores', () => {
  threadStoreContract('postgres', async (retention, now) => {
    const pool = await migratedPool();
    return { store: createPostgresThreadStore(pool, retention, now), close: () => pool.end() };
  });
  acpSessionStoreContract('postgres', async (retention, now) => {
    const pool = await migratedPool();
    return { store: createPostgresAcpSessionStore(pool, retention, now), close: () => pool.end() };
  });
  a2aTaskStoreContract('postgres', async (retention) => {
    const pool = await migratedPool();
    return { store: createPostgresA2aTaskStore(pool, retention), close: () => pool.end() };
  });
  mcpEventStoreContract('postgres', async (options) => {
    const pool = await migratedPool();
    return { store: createPostgresMcpEventStore(pool, options), close: () => pool.end() };
  });
  a2aPushStoreContract('postgres', async () => {
    const pool = await migratedPool();
    return { store: createPostgresA2aPushStore(pool), close: () => pool.end() };
  });
});
