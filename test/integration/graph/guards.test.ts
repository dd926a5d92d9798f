import { afterEach, describe, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { SlowConsumerError } from '../../../src/graph/run/event-log.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { ofType } from '../../support/run-events.ts';

let p: TestParley | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

describe('engine guards', () => {
  it('the watchdog fails a run that makes too many node transitions, with the reason', async () => {
    p = await createTestParley({ config: { engine: { maxTransitions: 4 } } });
    const { result, events } = await p.run({ query: 'Write a report on tides [[steps:1]]', mode: 'orchestrate' });
    expect(result).toMatchObject({
      status: 'failed',
      error: 'watchdog: the run made more than 4 node transitions (last node: dispatcher)',
    });
    expect(ofType(events, 'node.started')).toHaveLength(4);
    expect(ofType(events, 'run.finished')).toHaveLength(1);
  });

  it('the wall-time budget ends a slow run blocked', async () => {
    p = await createTestParley({ latencyMs: 400 });
    const { result } = await p.run({
      query: 'Write a report on rivers [[steps:1]]',
      mode: 'orchestrate',
      budget: { wallTimeMs: 250 },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toBe('wall time budget: the run took longer than 250 ms');
  });

  it('a slow consumer is detached with an error while the run and other consumers go on', async () => {
    p = await createTestParley({ config: { engine: { eventBuffer: 5 } } });
    const handle = p.engine.start({
      query: 'Write a report on bridges [[steps:2]]',
      mode: 'orchestrate',
      protocol: 'test',
    });
    const slow = handle.events()[Symbol.asyncIterator]();
    const first = await slow.next(); // reads run.started, then stops reading
    expect(first.value).toMatchObject({ type: 'run.started' });
    const fast: GraphEvent[] = [];
    for await (const e of handle.events()) fast.push(e);
    expect((await handle.result).status).toBe('completed');
    expect(fast.at(-1)!.type).toBe('run.finished');
    await expect(slow.next()).rejects.toBeInstanceOf(SlowConsumerError);
  });

  it('a consumer that breaks out early does not hold the run', async () => {
    p = await createTestParley();
    const handle = p.engine.start({ query: 'hello', protocol: 'test' });
    for await (const e of handle.events()) if (e.type === 'node.started') break;
    const result = await handle.result;
    expect(result.status).toBe('completed');
    // Replays still work after the early consumer left.
    const replay: GraphEvent[] = [];
    for await (const e of handle.events()) replay.push(e);
    expect(replay.at(-1)!.type).toBe('run.finished');
  });
});
