/**
 * Parley over HTTP: the same engine behind the real HTTP app (auth, body limit, error handler) and
 * the plain SSE adapter, POST /stream read by an SSE client (eventsource-parser) through fetch.
 * Adds what a remote client pays: HTTP, the adapter, SSE encoding and parsing.
 */
import { serve } from '@hono/node-server';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { AddressInfo } from 'node:net';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { silentLogger } from '../../src/log.ts';
import { sseRoutes } from '../../src/protocols/sse/index.ts';
import type { Contender } from '../lib/contender.ts';
import { now } from '../lib/clock.ts';
import { workloadQuery } from '../lib/workload.ts';
import { outcomeFromEvents } from './parley.ts';
import { createBenchEngine } from './parley-engine.ts';

async function listen(fetch: (req: Request) => Response | Promise<Response>) {
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            if ('closeAllConnections' in server) server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

export const parleyStream: Contender = {
  name: 'parley-stream',
  description: 'Parley over HTTP: POST /stream, GraphEvents as SSE (knowledge-graph writes on)',
  expectedModelCalls: (n) => n + 2,
  criticalStages: 3,
  async create({ modelUrl }) {
    const bench = await createBenchEngine({ modelUrl, knowledgeWrites: true });
    const app = createHttpApp({
      version: 'bench',
      apiKeys: [],
      bodyLimitBytes: bench.config.server.bodyLimitBytes,
      logger: silentLogger,
      routes: [{ path: '/', app: sseRoutes({ engine: bench.engine, config: bench.config, logger: silentLogger }) }],
      readiness: [],
    });
    const server = await listen(app.fetch);

    const stream = async (fanOut: number, onFirst?: () => void) => {
      const res = await fetch(`${server.url}/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: workloadQuery(fanOut), mode: 'orchestrate' }),
      });
      if (!res.ok || !res.body) throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
      const events: GraphEvent[] = [];
      const reader = res.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (events.length === 0) onFirst?.();
        events.push(JSON.parse(value.data) as GraphEvent);
      }
      return { runId: res.headers.get('x-parley-run-id') ?? undefined, events };
    };

    return {
      async run(_runId, fanOut) {
        const { runId, events } = await stream(fanOut);
        return { ...outcomeFromEvents(events), runId };
      },
      async firstEvent(_runId, fanOut) {
        const t0 = now();
        let first = Number.NaN;
        const { events } = await stream(fanOut, () => (first = now() - t0));
        return { firstEventMs: first, outcome: outcomeFromEvents(events) };
      },
      async close() {
        await server.close();
        await bench.close();
      },
    };
  },
};
