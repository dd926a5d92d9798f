/** The engine's spans: run → node → step → model call / tool call (OpenTelemetry SDK, in-memory exporter). */
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';

const exporter = new tracing.InMemorySpanExporter();
const processor = new tracing.SimpleSpanProcessor(exporter);
let sdk: NodeSDK;
let mcp: FixtureHttpServer;

beforeAll(async () => {
  sdk = new NodeSDK({ serviceName: 'parley-engine-test', spanProcessors: [processor], instrumentations: [] });
  sdk.start();
  mcp = await startFixtureHttpServer();
});
afterAll(async () => {
  await mcp.close();
  await sdk.shutdown();
});
const p = useTestParley(() => ({
  roster: false,
  mcpServers: { notes: { url: mcp.mcpUrl } },
  specialists: [
    {
      id: 'notes-reader',
      name: 'Notes reader',
      description: 'Reads meeting notes',
      kind: 'prompt',
      domains: ['notes'],
      prompt: 'You read notes.',
      endpoint: '',
      modelRole: 'specialist',
      tools: ['notes/read_note'],
      sourceId: 'skills:telemetry-test',
      available: true,
    },
  ],
}));

describe('telemetry', () => {
  it('nests run → node → step → model call and tool call', async () => {
    exporter.reset();
    const { result } = await p.run({
      query: 'Read the meeting notes [[tool:notes/read_note {"path":"a.md"}]]',
      mode: 'orchestrate',
    });
    expect(result.status).toBe('completed');
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans().filter(
      (s) =>
        s.spanContext().traceId ===
        exporter
          .getFinishedSpans()
          .find((x) => x.name === 'run')!
          .spanContext().traceId,
    );
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: (typeof spans)[number]) => byId.get(s.parentSpanContext?.spanId ?? '');
    const ancestors = (s: (typeof spans)[number]) => {
      const names: string[] = [];
      for (let a = parentOf(s); a; a = parentOf(a)) names.push(a.name);
      return names;
    };

    const run = spans.find((s) => s.name === 'run')!;
    expect(run.attributes).toMatchObject({
      'parley.run_id': result.runId,
      'parley.protocol': 'test',
      'parley.mode': 'orchestrate',
    });
    const nodes = spans.filter((s) => s.name.startsWith('node '));
    expect(nodes.map((s) => s.name)).toEqual(
      expect.arrayContaining(['node router', 'node dispatcher', 'node verifier', 'node synthesizer']),
    );
    for (const n of nodes) expect(parentOf(n)?.name).toBe('run');

    const step = spans.find((s) => s.name === 'step')!;
    expect(step.attributes).toMatchObject({ 'parley.step_id': 's1', 'parley.specialist': 'notes-reader' });
    expect(ancestors(step)).toContain('run');
    const stepChildren = spans.filter((s) => parentOf(s) === step).map((s) => s.name);
    expect(stepChildren).toContain('tool.call');
    expect(stepChildren.some((n) => n.startsWith('chat '))).toBe(true);
    const tool = spans.find((s) => s.name === 'tool.call')!;
    expect(tool.attributes).toMatchObject({ 'parley.tool': 'notes/read_note', 'parley.step_id': 's1' });
  });
});
