/**
 * Issue 44 §3: a thread's history that cannot be read (Postgres unreachable) is retried within the
 * run's deadline, never silently dropped. The whole server over real HTTP with its runs and threads in
 * a real Postgres, reached through a TCP proxy the test cuts: a follow-up run started while the
 * database is away waits for it, then answers with the conversation in its model request.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startShippedParley, type ShippedParley } from '../../support/server.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { tcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';

const available = postgresBinDir() !== undefined;
if (!available) console.log(`history-read.test.ts: ${POSTGRES_MISSING}`);

let pg: TestPostgres | undefined;
let proxy: TcpProxy | undefined;
let server: ShippedParley | undefined;

beforeAll(async () => {
  if (!available) return;
  pg = await startPostgres();
  proxy = await tcpProxy(Number(new URL(pg.url).port));
  const url = new URL(pg.url);
  url.port = String(proxy.port);
  server = await startShippedParley({ PARLEY_DATABASE_URL: url.toString() });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await proxy?.close();
  await pg?.stop();
});

it.skipIf(!available)(
  "a follow-up run while the thread can't be read waits for it and answers with the conversation",
  async () => {
    const threadId = 'history-read-thread';
    const first = await postJson(`${server!.url}/stream`, {
      query: 'Remember the code word PELICAN-7731 [[route:direct]]',
      threadId,
    });
    expect((await readAll(first)).at(-1)!.json).toMatchObject({ type: 'run.finished', status: 'completed' });

    proxy!.cut();
    const second = postJson(`${server!.url}/stream`, { query: 'What was the code word? [[route:direct]]', threadId });
    await new Promise((r) => setTimeout(r, 3_000));
    proxy!.mend();
    const res = await second;
    const events = (await readAll(res)).map((m) => m.json as { type: string; status?: string; runId: string });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const runId = events[0]!.runId;
    const calls = server!.parley.scripted!.requests.filter((r) => r.runId === runId);
    expect(calls.length).toBeGreaterThan(0);
    // The earlier turn reached the model: the history was read, late, not dropped.
    expect(calls.some((r) => JSON.stringify(r.body).includes('PELICAN-7731'))).toBe(true);
  },
  120_000,
);
