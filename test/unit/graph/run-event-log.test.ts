import { describe, expect, it } from 'vitest';
import { RunEventLog, SlowConsumerError } from '../../../src/graph/run/event-log.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 };

async function collect(it: AsyncIterable<GraphEvent>): Promise<GraphEvent[]> {
  const out: GraphEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('RunEventLog', () => {
  it('numbers events from 1 with ISO times and replays history to late consumers', async () => {
    const log = new RunEventLog('r1', { buffer: 10 });
    log.emit({ type: 'node.started', node: 'router' });
    const early = collect(log.events());
    log.emit({ type: 'answer.delta', text: 'hi' });
    log.emit({ type: 'run.finished', status: 'completed', usage, durationMs: 1 });
    expect(log.emit({ type: 'answer.delta', text: 'late' })).toBeUndefined();
    const all = await early;
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(all.every((e) => e.runId === 'r1' && !Number.isNaN(Date.parse(e.at)))).toBe(true);
    expect((await collect(log.events(1))).map((e) => e.seq)).toEqual([2, 3]);
    expect(await collect(log.events(3))).toEqual([]);
    expect(await collect(log.events(99))).toEqual([]);
    expect(log.consumerCount).toBe(0);
  });

  it('detaches a consumer that falls more than the buffer behind, without blocking others', async () => {
    const log = new RunEventLog('r2', { buffer: 3 });
    const slow = log.events()[Symbol.asyncIterator]();
    const first = slow.next().then(
      () => 'an event',
      (e: unknown) => e,
    ); // subscribed, never read again
    const fast = collect(log.events());
    for (let i = 0; i < 5; i++) {
      log.emit({ type: 'step.delta', stepId: 's', text: String(i) });
      await new Promise((r) => setImmediate(r)); // the fast consumer keeps up between events
    }
    log.emit({ type: 'run.finished', status: 'completed', usage, durationMs: 1 });
    expect((await fast).length).toBe(6);
    expect(await first).toBe('an event');
    await expect(slow.next()).rejects.toBeInstanceOf(SlowConsumerError);
    expect(log.consumerCount).toBe(0);
  });

  it('a resume point past the end follows the live run from now on', async () => {
    const log = new RunEventLog('r4', { buffer: 10 });
    log.emit({ type: 'node.started', node: 'router' });
    const later = collect(log.events(50));
    log.emit({ type: 'run.finished', status: 'completed', usage, durationMs: 1 });
    expect((await later).map((e) => e.seq)).toEqual([2]);
  });

  it('a consumer that breaks out is removed', async () => {
    const log = new RunEventLog('r3', { buffer: 100 });
    log.emit({ type: 'node.started', node: 'router' });
    log.emit({ type: 'node.started', node: 'dispatcher' });
    const pending = (async () => {
      for await (const e of log.events()) if (e.seq === 1) break;
    })();
    await pending;
    expect(log.consumerCount).toBe(0);
    // a consumer waiting on a live run and then returned is removed too
    const it = log.events()[Symbol.asyncIterator]();
    await it.next();
    await it.next();
    const waiting = it.next();
    expect(log.consumerCount).toBe(1);
    await it.return!();
    expect((await waiting).done).toBe(true);
    expect(log.consumerCount).toBe(0);
  });

  it('end() ends waiting and late consumers after what they have, without a run.finished (a suspended run)', async () => {
    const log = new RunEventLog('r4', { buffer: 100 });
    log.emit({ type: 'node.started', node: 'router' });
    const following = collect(log.events());
    await new Promise((r) => setImmediate(r)); // the consumer has read seq 1 and waits for more
    log.emit({ type: 'node.started', node: 'dispatcher' });
    log.end();
    expect(log.emit({ type: 'answer.delta', text: 'after the end' })).toBeUndefined();
    expect((await following).map((e) => e.seq)).toEqual([1, 2]);
    expect((await collect(log.events(1))).map((e) => e.seq)).toEqual([2]);
    expect(log.consumerCount).toBe(0);
  });
});
