/**
 * Issue 44 §3, the give-up path (history-read.test.ts is the recovery): a follow-up run whose thread
 * cannot be read at all — its runs and threads in a real Postgres behind a TCP proxy the test cuts and
 * does not mend — retries the read, then fails saying which thread could not be read, never answering as
 * if the conversation had not happened: over SSE, over the OpenAI endpoint with the official client, and
 * within a run's own wall time (it gives up before its deadline, naming the thread, not the budget).
 * No model is called for any of them. Once the database is back, the thread is read again.
 */
import OpenAI from 'openai';
import { expect, it } from 'vitest';
import type { GraphEvent, GraphEventOf } from '../../../src/graph/run/events.ts';
import { postJson, readAll } from '../../support/protocols/sse-read.ts';
import { useServerOnCuttablePostgres } from '../../support/postgres-behind-proxy.ts';

// The retry window shortened from its 20 s default (PARLEY_THREAD_READ_RETRY_MS): the same path, in seconds.
const THREAD_READ_RETRY_MS = 6_000;
const { available, server, proxy } = useServerOnCuttablePostgres('history-read-give-up.test.ts', {
  PARLEY_THREAD_READ_RETRY_MS: String(THREAD_READ_RETRY_MS),
});

const THREAD = 'history-give-up-thread';
const FOLLOW_UP = 'What was the code word? [[route:direct]]';
const REASON = new RegExp(
  `^the conversation of thread "${THREAD}" could not be read \\(.+\\); the run stopped rather than answer without it: retry$`,
);

/** A run over POST /stream to its end: the run.finished event and when the client had it. */
async function streamed(body: Record<string, unknown>, since: number) {
  const events = (await readAll(await postJson(`${server().url}/stream`, body))).map((m) => m.json as GraphEvent);
  return { events, finished: events.at(-1) as GraphEventOf<'run.finished'>, ms: Date.now() - since };
}

it.skipIf(!available)(
  'a follow-up run whose thread cannot be read retries, then fails naming the thread on SSE and OpenAI, within its own deadline too',
  async () => {
    const first = await streamed(
      { query: 'Remember the code word PELICAN-7731 [[route:direct]]', threadId: THREAD },
      0,
    );
    expect(first.finished).toMatchObject({ type: 'run.finished', status: 'completed' });

    proxy().cut();
    const since = Date.now();
    const openai = new OpenAI({ baseURL: `${server().url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const [sse, withDeadline, viaOpenAI] = await Promise.all([
      streamed({ query: FOLLOW_UP, threadId: THREAD }, since),
      streamed({ query: FOLLOW_UP, threadId: THREAD, budget: { wallTimeMs: 3_000 } }, since),
      openai.chat.completions
        .create(
          { model: 'parley', messages: [{ role: 'user', content: FOLLOW_UP }] },
          { headers: { 'x-parley-thread-id': THREAD } },
        )
        .then(
          () => undefined,
          (err: unknown) => err,
        ),
    ]);

    // SSE: retried for the whole retry window, then failed with the reason.
    expect(sse.finished).toMatchObject({ type: 'run.finished', status: 'failed' });
    expect(sse.finished.error).toMatch(REASON);
    expect(sse.finished.durationMs).toBeGreaterThanOrEqual(THREAD_READ_RETRY_MS - 2_000);
    expect(sse.finished.durationMs).toBeLessThan(THREAD_READ_RETRY_MS + 2_000);
    // A run whose wall time is shorter gives up before its deadline, saying why (not "wall time budget").
    expect(withDeadline.finished).toMatchObject({ type: 'run.finished', status: 'failed' });
    expect(withDeadline.finished.error).toMatch(REASON);
    expect(withDeadline.finished.durationMs).toBeLessThan(3_000);
    // The OpenAI client: the run's failure as an API error carrying the same reason.
    expect(viaOpenAI).toBeInstanceOf(OpenAI.APIError);
    expect((viaOpenAI as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect((viaOpenAI as Error).message).toMatch(
      /the conversation of thread "history-give-up-thread" could not be read/,
    );
    // None of them asked a model anything: no answer was made without the conversation.
    const failedRuns = [sse, withDeadline].map((r) => r.events[0]!.runId);
    const calls = server().parley.scripted!.requests.filter((r) => r.runId !== first.events[0]!.runId);
    expect(calls, `runs ${failedRuns.join(', ')}`).toEqual([]);

    // The database back: the thread is read again, the conversation reaches the model.
    proxy().mend();
    const again = await streamed({ query: FOLLOW_UP, threadId: THREAD }, Date.now());
    expect(again.finished).toMatchObject({ type: 'run.finished', status: 'completed' });
    const request = server().parley.scripted!.requests.filter((r) => r.runId === again.events[0]!.runId);
    expect(request.some((r) => JSON.stringify(r.body).includes('PELICAN-7731'))).toBe(true);
  },
  120_000,
);
