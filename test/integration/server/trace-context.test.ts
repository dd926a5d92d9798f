/** A caller's W3C traceparent is honoured: the run it starts is a span in the caller's trace. */
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/log.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';

const exporter = new tracing.InMemorySpanExporter();
const processor = new tracing.SimpleSpanProcessor(exporter);
let sdk: NodeSDK;
let parley: Parley;
let url: string;

beforeAll(async () => {
  sdk = new NodeSDK({ serviceName: 'parley-test', spanProcessors: [processor], instrumentations: [] });
  sdk.start();
  parley = await createParley(
    loadConfig({
      PARLEY_PORT: '0',
      PARLEY_DATA_DIR: ':memory:',
      PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
      PARLEY_LOG_LEVEL: 'silent',
    }),
    {
      logger: silentLogger,
      telemetry: false, // the test's own SDK is the one recording
    },
  );
  ({ url } = await parley.listen());
});
afterAll(async () => {
  await parley?.close();
  await sdk?.shutdown();
});

it('runs a request that carries traceparent inside the caller trace', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';
  const res = await fetch(`${url}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
    body: JSON.stringify({ query: 'hello there [[route:direct]]' }),
  });
  expect(res.status).toBe(200);
  await res.text(); // the stream ends with run.finished
  await processor.forceFlush();
  const run = exporter.getFinishedSpans().find((s) => s.name === 'run');
  expect(run?.spanContext().traceId).toBe(traceId);
  expect(run?.parentSpanContext?.spanId).toBe(callerSpanId);
});
