/**
 * The execution-memory write happens after run.finished (off the client's critical path), but
 * `result` and `engine.close()` still wait for it.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';

const p = useTestParley({}, { each: true });

describe('recording a run after run.finished', () => {
  it('result settles only once the run is recorded', async () => {
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
    expect(await p.store.getRun(handle.id)).toMatchObject({ status: 'completed', score: 0.9 });
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
});
