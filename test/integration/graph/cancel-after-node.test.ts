/**
 * A cancel that lands as a node finishes keeps the node's update. The walk races each node against the run's
 * abort; a consumer cancelling on the node's last event (verify.result) used to win that race while the
 * node's promise was still a few microtasks from settling — with telemetry on, the node's span adds those —
 * and the update was dropped: the run had said "verified, score s" and the stored run's score was null.
 * Through the real engine, the scripted model and the OpenTelemetry SDK (as with OTEL_* set).
 */
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { provenTeam } from '../../support/records.ts';

let sdk: NodeSDK;
beforeAll(() => {
  sdk = new NodeSDK({
    serviceName: 'parley-cancel-test',
    spanProcessors: [new tracing.SimpleSpanProcessor(new tracing.InMemorySpanExporter())],
    instrumentations: [],
  });
  sdk.start();
});
afterAll(async () => {
  await sdk.shutdown();
});
const p = useTestParley();

describe('a cancel right after a node finishes', () => {
  it('keeps the score verify.result reported', async () => {
    const query = 'Write the release checklist for the mobile app';
    await provenTeam(p.store, query, {
      rationale: 'seeded',
      steps: [{ id: 's1', specialist: 'writer', objective: query, dependsOn: [], phase: 'execution' }],
    });
    const handle = p.engine.start({ query, mode: 'orchestrate', protocol: 'test' });
    let reported: number | undefined;
    for await (const e of handle.events()) {
      if (e.type !== 'verify.result') continue;
      reported = e.score;
      expect(p.engine.cancel(handle.id, 'test cancels on verify.result')).toBe(true);
    }
    const result = await handle.result;
    expect(result.status).toBe('cancelled');
    expect(reported).toBeTypeOf('number');
    await p.engine.recorded(result.runId);
    expect((await p.store.getRun(result.runId))!.score).toBe(reported);
  });
});
