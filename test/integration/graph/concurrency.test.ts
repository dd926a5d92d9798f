import { describe, expect, it, vi } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

const p = useTestParley({
  latencyMs: 20,
  config: { engine: { runRetentionMs: 50 }, budget: { caller: { runsPerMinute: 10_000 } } },
});

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').length;

describe('200 concurrent runs', () => {
  it('complete with isolated results and leave no timers or runs behind', async () => {
    await p.run({ query: 'warm up the connection pool please' }); // so pooled sockets exist before we count
    await vi.waitFor(() => expect(p.engine.retainedRuns).toBe(0));
    const timersBefore = timers();

    const modes = ['auto', 'orchestrate', 'direct'] as const;
    const handles = Array.from({ length: 200 }, (_, i) =>
      p.engine.start({
        query: `Write a note about topic-${i} [[steps:${(i % 3) + 1}]]`,
        mode: modes[i % 3],
        caller: { id: `caller-${i % 7}` },
        protocol: 'test',
      }),
    );
    const collected = await Promise.all(
      handles.map(async (h) => {
        const events: GraphEvent[] = [];
        for await (const e of h.events()) events.push(e);
        return { id: h.id, events, result: await h.result };
      }),
    );
    for (const [i, { id, events, result }] of collected.entries()) {
      expect(result.status, `run ${i}: ${result.error}`).toBe('completed');
      expect(result.runId).toBe(id);
      // Its own answer, its own events, numbered without gaps, one terminal event.
      expect(result.answer).toContain(`topic-${i}`);
      for (let j = 0; j < 200; j += 37) if (j !== i) expect(result.answer).not.toContain(`topic-${j} `);
      expect(events.every((e) => e.runId === id)).toBe(true);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
      expect(events.filter((e) => e.type === 'run.finished')).toHaveLength(1);
      if (i % 3 !== 2) expect(events.filter((e) => e.type === 'step.finished')).toHaveLength((i % 3) + 1);
    }
    expect(p.engine.activeRuns).toBe(0);
    // Finished runs are dropped after the retention time, and with them the sweep timer.
    await vi.waitFor(() => expect(p.engine.retainedRuns).toBe(0), { timeout: 5000 });
    await vi.waitFor(() => expect(timers()).toBeLessThanOrEqual(timersBefore), { timeout: 5000 });
  });
});
