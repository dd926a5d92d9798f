/**
 * The execution-memory write happens after the run's result (off its critical path, deferred so that
 * runs finishing one after another share a write: durable/record-end.ts); a read of the knowledge store
 * right after the result still finds the record, `engine.recorded(id)` waits for the write, and
 * `engine.close()` waits for every pending one, written at once rather than after its deferral.
 */
import { describe, expect, it } from 'vitest';
import { MEMORY_DEFER_MS } from '../../../src/graph/durable/record-end.ts';
import { useTestParley } from '../../support/use-test-parley.ts';

const p = useTestParley({}, { each: true });

describe('recording a run after run.finished', () => {
  it('result settles before the record is written; a read right after it finds the record all the same', async () => {
    const handle = p.engine.start({
      query: 'Write a report on the sales data [[steps:2]]',
      mode: 'orchestrate',
      protocol: 'test',
    });
    const types: string[] = [];
    for await (const e of handle.events()) types.push(e.type);
    expect(types.at(-1)).toBe('run.finished');
    const result = await handle.result;
    expect(result.status).toBe('completed');
    const written = { done: false };
    const recorded = p.engine.recorded(handle.id).then(() => (written.done = true));
    await new Promise((r) => setImmediate(r));
    expect(written.done).toBe(false);
    // The read writes the waiting record first.
    expect(await p.store.getRun(handle.id)).toMatchObject({ status: 'completed', score: 0.9 });
    await recorded;
    expect(written.done).toBe(true);
  });

  it('the next run of the same query reuses the team its predecessor taught, though that record was still waiting', async () => {
    const query = 'Write a report on the inventory data [[steps:2]]';
    const first = await p.run({ query, mode: 'orchestrate' });
    expect(first.result.status).toBe('completed');
    // The first run's record waits to be written; the second run's stage 1 writes it (it teaches the team).
    const second = await p.run({ query, mode: 'orchestrate' });
    const routed = second.events.find((e) => e.type === 'route.decided');
    expect(routed).toMatchObject({ teamMatch: { reused: true } });
    const third = await p.run({ query, mode: 'orchestrate' });
    expect(third.result.status).toBe('completed');
    await p.engine.recorded();
    expect(await p.store.getRun(third.result.runId)).toMatchObject({ status: 'completed' });
    expect((await p.store.listRuns({ limit: 10 })).length).toBe(3);
  });

  it('engine.close() right after run.finished waits for the pending record', async () => {
    // A slow store: the record is still being written when the client has its answer.
    const recordRun = p.store.recordRun.bind(p.store);
    let recorded = 0;
    p.store.recordRun = async (record) => {
      await new Promise((r) => setTimeout(r, 100));
      await recordRun(record);
      recorded++;
    };
    const handle = p.engine.start({
      query: 'Write a report on the weather data [[steps:2]]',
      mode: 'orchestrate',
      protocol: 'test',
    });
    for await (const e of handle.events()) if (e.type === 'run.finished') break;
    expect(recorded).toBe(0);
    await p.engine.close();
    expect(recorded).toBe(1);
    expect(await p.store.getRun(handle.id)).toMatchObject({ status: 'completed' });
  });

  it('engine.close() writes a deferred record at once instead of waiting out MEMORY_DEFER_MS', async () => {
    const { result } = await p.run({ query: 'Write a report on the traffic data [[steps:2]]', mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    // The record waits for others to share its write; a closing engine has no other to wait for.
    const t0 = Date.now();
    await p.engine.close();
    const closeMs = Date.now() - t0;
    expect(closeMs).toBeLessThan(MEMORY_DEFER_MS * 0.75);
    expect(await p.store.getRun(result.runId)).toMatchObject({ status: 'completed' });
  });
});
