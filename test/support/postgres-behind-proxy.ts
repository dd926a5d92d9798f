/**
 * The shipped server with its runs and threads in a real Postgres, reached through a TCP proxy the test
 * can cut and mend (test/integration/threads/history-read*.test.ts). Skips, saying so, without Postgres.
 */
import { afterAll, beforeAll } from 'vitest';
import { startShippedParley, type ShippedParley } from './server.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from './postgres.ts';
import { tcpProxy, type TcpProxy } from './tcp-proxy.ts';

export interface ServerOnCuttablePostgres {
  /** False where Postgres is missing: the file's tests skip. */
  available: boolean;
  server: () => ShippedParley;
  proxy: () => TcpProxy;
}

/** `env`: more settings for the server (a shorter PARLEY_THREAD_READ_RETRY_MS). */
export function useServerOnCuttablePostgres(file: string, env: Record<string, string> = {}): ServerOnCuttablePostgres {
  const available = postgresBinDir() !== undefined;
  if (!available) console.log(`${file}: ${POSTGRES_MISSING}`);
  let pg: TestPostgres | undefined;
  let proxy: TcpProxy | undefined;
  let server: ShippedParley | undefined;
  beforeAll(async () => {
    if (!available) return;
    pg = await startPostgres();
    proxy = await tcpProxy(Number(new URL(pg.url).port));
    const url = new URL(pg.url);
    url.port = String(proxy.port);
    server = await startShippedParley({ ...env, PARLEY_DATABASE_URL: url.toString() });
  }, 120_000);
  afterAll(async () => {
    // A test that failed with the proxy cut would leave the server's close waiting on Postgres.
    proxy?.mend();
    await server?.close();
    await proxy?.close();
    await pg?.stop();
  });
  return { available, server: () => server!, proxy: () => proxy! };
}
