/**
 * Child-process entry: runs the scripted model (src/scripted-model) with a fixed latency in its own
 * process, so that on the 2-core machine the model server and the contender do not share an event
 * loop. The parent talks to it over IPC: read the request log, or clear it (so a long benchmark
 * does not hoard 100k request bodies).
 *
 * It serves the scripted model's own app, but on an HTTP server tuned like a provider's front end:
 * idle keep-alive connections live 2 minutes (Node's default 5 s races the client's 4 s reuse window
 * once thousands of sockets sit in the pool of a loaded process: "other side closed"), and a listen
 * backlog that takes a thousand runs connecting at once.
 */
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { scriptedModelApp, type ScriptedRequestLog } from '../../src/scripted-model/server.ts';
import { FaultPlan } from '../../src/scripted-model/faults.ts';
import type { LogEntry, ModelProcessReply, ModelProcessRequest } from './model-server.ts';

const requests: ScriptedRequestLog[] = [];
const closing = new AbortController();
// One app per latency, all writing the same log; the parent may switch latency between phases
// (the memory benchmark warms up at L = 0, then holds runs open at L = 2 s on the same server).
const apps = new Map<number, ReturnType<typeof scriptedModelApp>>();
const appFor = (ms: number) => {
  let app = apps.get(ms);
  if (!app) apps.set(ms, (app = scriptedModelApp({ latencyMs: ms }, requests, new FaultPlan(), closing.signal)));
  return app;
};
let current = appFor(Number(process.env.BENCH_LATENCY_MS ?? '0'));
const server = createAdaptorServer({ fetch: (req) => current.fetch(req) });
if ('keepAliveTimeout' in server) {
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.requestTimeout = 0;
}
const url = await new Promise<string>((resolve) =>
  server.listen(0, '127.0.0.1', 4096, () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
);
const model = {
  url,
  requests,
  close: () =>
    new Promise<void>((done) => {
      closing.abort();
      server.close(() => done());
      if ('closeAllConnections' in server) server.closeAllConnections();
    }),
};

function entries(from: number): LogEntry[] {
  return model.requests.slice(from).map((r) => ({
    arrivedAt: r.arrivedAt,
    finishedAt: r.finishedAt,
    role: r.role,
    runId: r.runId,
    status: r.status,
    aborted: r.aborted,
  }));
}

process.on('message', (msg: ModelProcessRequest) => {
  let reply: ModelProcessReply;
  if (msg.cmd === 'length') reply = { id: msg.id, length: model.requests.length };
  else if (msg.cmd === 'entries') reply = { id: msg.id, entries: entries(msg.from) };
  else if (msg.cmd === 'inflight') {
    let n = 0;
    for (const r of model.requests) if (r.finishedAt === undefined) n++;
    reply = { id: msg.id, length: n };
  } else if (msg.cmd === 'latency') {
    current = appFor(msg.ms);
    reply = { id: msg.id, length: model.requests.length };
  } else {
    model.requests.length = 0;
    reply = { id: msg.id, length: 0 };
  }
  process.send!(reply);
});
process.on('disconnect', () => void model.close().then(() => process.exit(0)));
process.send!({ id: 0, url: model.url });
