import { describe, expect, it, vi } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { ofType } from '../../support/run-events.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

const p = useTestParley({ latencyMs: 1500 });

describe('cancel', () => {
  it('aborts in-flight model HTTP requests and ends the run cancelled', async () => {
    const handle = p.engine.start({
      query: 'Write a report on bread [[steps:2]]',
      mode: 'orchestrate',
      protocol: 'test',
    });
    const events: GraphEvent[] = [];
    let cancelled = false;
    for await (const e of handle.events()) {
      events.push(e);
      if (e.type === 'step.started' && ofType(events, 'step.started').length === 2 && !cancelled) {
        // Let both step calls reach the server, then cancel.
        await vi.waitFor(() =>
          expect(p.scripted.requests.filter((r) => r.runId === handle.id && r.role === 'specialist')).toHaveLength(2),
        );
        cancelled = p.engine.cancel(handle.id, 'user pressed stop');
      }
    }
    expect(cancelled).toBe(true);
    const result = await handle.result;
    expect(result).toMatchObject({ status: 'cancelled', error: 'cancelled: user pressed stop' });
    expect(ofType(events, 'run.finished')).toHaveLength(1);
    expect(events.at(-1)!.type).toBe('run.finished');
    // The scripted server saw both specialist requests closed by the client before it answered.
    await vi.waitFor(() => {
      const calls = p.scripted.requests.filter((r) => r.runId === handle.id && r.role === 'specialist');
      expect(calls.map((c) => c.aborted)).toEqual([true, true]);
    });
    expect(p.engine.cancel(handle.id)).toBe(false);
    expect(p.engine.cancel('no-such-run')).toBe(false);
    expect(p.engine.activeRuns).toBe(0);
  });
});
