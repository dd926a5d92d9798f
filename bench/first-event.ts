/**
 * Time from request to first event for the streaming adapters: `npx tsx bench/first-event.ts [--runs 100]`
 *
 * For POST /ag-ui (RUN_STARTED) and POST /stream (run.started): the time from sending the request to
 * having the first complete SSE message parsed by the client, over real HTTP on 127.0.0.1, against
 * the real engine (scripted model, Kuzu in memory) behind the real HTTP app (auth off, body limit,
 * error handler). Runs are sequential, each read to its end before the next starts, after a few
 * warm-up runs. Reports p50/p90/p99/mean/max in milliseconds.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Hono } from 'hono';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { createHttpApp } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { aguiRoutes } from '../src/protocols/agui/index.ts';
import { sseRoutes } from '../src/protocols/sse/index.ts';
import { createTestParley } from '../test/support/engine.ts';
import { listen } from '../test/support/http.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '100' }, warmup: { type: 'string', default: '5' } },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);

const parley = await createTestParley({ config: { budget: { caller: { runsPerMinute: 1_000_000 } } } });
const deps = { engine: parley.engine, approvals: parley.approvals, config: parley.config, logger: silentLogger };
const app = createHttpApp({
  version: 'bench',
  apiKeys: [],
  bodyLimitBytes: 1024 * 1024,
  logger: silentLogger,
  readiness: [],
  routes: [
    { path: '/', app: aguiRoutes(deps) },
    { path: '/', app: sseRoutes(deps) },
  ],
});
const server = await listen(app as unknown as Hono);

/** Sends the request; resolves with ms to the first parsed SSE message, after reading the stream to its end. */
async function timeFirstEvent(path: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const first = await reader.read();
  const ms = performance.now() - t0;
  if (first.done) throw new Error(`${path}: the stream ended without an event`);
  while (!(await reader.read()).done);
  return ms;
}

const query = 'hello [[route:direct]]';
const endpoints = {
  '/ag-ui (RUN_STARTED)': () =>
    timeFirstEvent('/ag-ui', {
      threadId: randomUUID(),
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', content: query }],
    }),
  '/stream (run.started)': () => timeFirstEvent('/stream', { query }),
};

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const fmt = (n: number) => n.toFixed(2).padStart(7);

console.log(`first event, ${runs} runs each (after ${warmup} warm-up), scripted model, 127.0.0.1`);
console.log(`${'endpoint'.padEnd(24)}    p50     p90     p99    mean     max   (ms)`);
try {
  for (const [name, once] of Object.entries(endpoints)) {
    for (let i = 0; i < warmup; i++) await once();
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push(await once());
    const sorted = [...samples].sort((a, b) => a - b);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    console.log(
      `${name.padEnd(24)}${fmt(pct(sorted, 50))} ${fmt(pct(sorted, 90))} ${fmt(pct(sorted, 99))} ${fmt(mean)} ${fmt(sorted.at(-1)!)}`,
    );
  }
} finally {
  await server.close();
  await parley.close();
}
