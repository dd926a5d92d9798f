/** Model calls produce spans with model, token and cost attributes (OpenTelemetry SDK, in-memory exporter). */
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createModelClient } from '../../../src/llm/index.ts';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';
import { telemetryEnabled, withSpan } from '../../../src/telemetry.ts';

const exporter = new tracing.InMemorySpanExporter();
const processor = new tracing.SimpleSpanProcessor(exporter);
/** Finished spans once exported (export waits for resource detection, so flush first). */
const finished = async () => {
  await processor.forceFlush();
  return exporter.getFinishedSpans();
};
let sdk: NodeSDK;
let scripted: ScriptedModel;

beforeAll(async () => {
  sdk = new NodeSDK({ serviceName: 'parley-test', spanProcessors: [processor], instrumentations: [] });
  sdk.start();
  scripted = await startScriptedModel();
});
afterAll(async () => {
  await scripted.close();
  await sdk.shutdown();
});

const model = () =>
  createModelClient(
    loadConfig({
      PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
      PARLEY_MODEL_API_KEY: 'k',
      PARLEY_MODEL: 'gpt-4o-mini',
      PARLEY_MODEL_MAX_RETRIES: '0',
    }).model,
  );

describe('telemetry', () => {
  it('is on only when an OTLP endpoint or a traces exporter is configured', () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(telemetryEnabled({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
  });

  it('a chat call is a span with model, tokens, cost, role and run id, nested in the caller span', async () => {
    exporter.reset();
    const result = await withSpan('step', { 'parley.step': 's1' }, () =>
      model().chat({ role: 'specialist', runId: 'run-t', messages: [{ role: 'user', content: 'trace me' }] }),
    );
    const spans = await finished();
    const chat = spans.find((s) => s.name === 'chat gpt-4o-mini')!;
    const step = spans.find((s) => s.name === 'step')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
      'parley.cost_usd': result.usage.costUsd,
      'parley.model.role': 'specialist',
      'parley.run_id': 'run-t',
      'parley.attempts': 1,
    });
    expect(chat.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
  });

  it('a stream is one span with its usage; a failed call is a span with error status', async () => {
    exporter.reset();
    for await (const chunk of model().stream({
      role: 'synthesizer',
      messages: [{ role: 'user', content: 'stream me' }],
    }))
      void chunk;
    await model()
      .chat({ role: 'router', messages: [] })
      .catch(() => undefined);
    const [stream, failed] = await finished();
    expect(stream!.attributes).toMatchObject({ 'parley.stream': true, 'parley.model.role': 'synthesizer' });
    expect(stream!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.events.map((e) => e.name)).toContain('exception');
  });
});
