/**
 * Issue 44 §3: a thread's history that cannot be read (Postgres unreachable) is retried within the
 * run's deadline, never silently dropped. The whole server over real HTTP with its runs and threads in
 * a real Postgres, reached through a TCP proxy the test cuts: a follow-up run started while the
 * database is away waits for it, then answers with the conversation in its model request.
 */
import { expect, it } from 'vitest';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { useServerOnCuttablePostgres } from '../../support/postgres-behind-proxy.ts';

const { available, server, proxy } = useServerOnCuttablePostgres('history-read.test.ts');

it.skipIf(!available)(
  "a follow-up run while the thread can't be read waits for it and answers with the conversation",
  async () => {
    const threadId = 'history-read-thread';
    const first = await postJson(`${server().url}/stream`, {
      query: 'Remember the code word PELICAN-7731 [[route:direct]]',
      threadId,
    });
    expect((await readAll(first)).at(-1)!.json).toMatchObject({ type: 'run.finished', status: 'completed' });

    proxy().cut();
    const second = postJson(`${server().url}/stream`, { query: 'What was the code word? [[route:direct]]', threadId });
    await new Promise((r) => setTimeout(r, 3_000));
    proxy().mend();
    const res = await second;
    const events = (await readAll(res)).map((m) => m.json as { type: string; status?: string; runId: string });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const runId = events[0]!.runId;
    const calls = server().parley.scripted!.requests.filter((r) => r.runId === runId);
    expect(calls.length).toBeGreaterThan(0);
    // The earlier turn reached the model: the history was read, late, not dropped.
    expect(calls.some((r) => JSON.stringify(r.body).includes('PELICAN-7731'))).toBe(true);
  },
  120_000,
);
