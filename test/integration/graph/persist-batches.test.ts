/**
 * How a run's events reach the run store (src/graph/durable/persist-events.ts), against a real LMDB run
 * store: what one turn of the event loop emits is one append; streamed text (answer.delta) waits up to
 * STREAM_LINGER_MS for more and goes at once with the next event of another kind; and no consumer sees an
 * event before the append holding it is committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { persistEvents, STREAM_LINGER_MS } from '../../../src/graph/durable/persist-events.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { RunEventLog } from '../../../src/graph/run/event-log.ts';
import { silentLogger } from '../../../src/log.ts';
import { openKv } from '../../../src/store/kv.ts';
import { openLmdbRunStore } from '../../../src/store/runs/lmdb/lmdb-run-store.ts';
import type { RunStore, StoredEvent } from '../../../src/store/runs/run-store.ts';
import { runningRecord } from '../../support/records.ts';

const usage = { inputTokens: 1, outputTokens: 2, cachedTokens: 0, costUsd: 0, modelCalls: 1, toolCalls: 0 };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real LMDB run store whose appends are recorded: the types of each append, and when it committed. */
function recordedStore() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-persist-batches-'));
  const store = openLmdbRunStore(openKv(dir));
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const appends: { types: string[]; committed: boolean }[] = [];
  const recorded: RunStore = {
    ...store,
    events: {
      ...store.events,
      append: async (runId, events: readonly StoredEvent[]) => {
        const entry = { types: events.map((e) => (e as unknown as GraphEvent).type), committed: false };
        appends.push(entry);
        await store.events.append(runId, events);
        entry.committed = true;
      },
    },
  };
  return { store: recorded, appends };
}

function runLog(store: RunStore, id: string) {
  const record = runningRecord(id);
  const persist = persistEvents(store, { record, plan: () => undefined, fresh: true }, silentLogger);
  return new RunEventLog(id, { buffer: 1000, persist });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('a run’s events in the run store', () => {
  it('commits a streamed answer with the events after it, and shows a consumer nothing uncommitted', async () => {
    const { store, appends } = recordedStore();
    const log = runLog(store, 'r1');
    const seen: { type: string; committedBefore: boolean }[] = [];
    const consumer = (async () => {
      for await (const e of log.events()) {
        const append = appends.find((a, i) => a.types.length > 0 && e.seq <= countUpTo(appends, i));
        seen.push({ type: e.type, committedBefore: append?.committed === true });
      }
    })();
    log.emit({ type: 'run.started', threadId: 't-r1', query: 'q', mode: 'auto', protocol: 'test' });
    log.emit({ type: 'node.started', node: 'synthesizer' }); // same turn: same append
    await turn();
    await log.committed();
    // Five deltas, one per turn of the event loop (one per network read), then the end of the answer.
    for (const word of ['one', 'two', 'three', 'four', 'five']) {
      log.emit({ type: 'answer.delta', text: `${word} ` });
      await turn();
    }
    log.emit({ type: 'usage', usage });
    log.emit({ type: 'node.finished', node: 'synthesizer', durationMs: 1, next: 'end' });
    log.emit({ type: 'run.finished', status: 'completed', answer: 'one two three four five', usage, durationMs: 5 });
    await consumer;
    expect(appends.map((a) => a.types)).toEqual([
      ['run.started', 'node.started'],
      [
        'answer.delta',
        'answer.delta',
        'answer.delta',
        'answer.delta',
        'answer.delta',
        'usage',
        'node.finished',
        'run.finished',
      ],
    ]);
    expect(seen.map((s) => s.type)).toEqual([...appends[0]!.types, ...appends[1]!.types]);
    expect(seen.every((s) => s.committedBefore)).toBe(true);
    expect((await store.events.read('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('commits streamed text that nothing follows once it has waited STREAM_LINGER_MS', async () => {
    const { store, appends } = recordedStore();
    const log = runLog(store, 'r2');
    log.emit({ type: 'run.started', threadId: 't-r2', query: 'q', mode: 'auto', protocol: 'test' });
    await log.committed();
    const cursor = log.events(1)[Symbol.asyncIterator]();
    const t0 = performance.now();
    log.emit({ type: 'answer.delta', text: 'slow ' });
    const first = await cursor.next();
    const waited = performance.now() - t0;
    expect(first.value).toMatchObject({ type: 'answer.delta', text: 'slow ' });
    expect(appends.at(-1)).toEqual({ types: ['answer.delta'], committed: true });
    expect(waited).toBeGreaterThanOrEqual(STREAM_LINGER_MS - 2);
    expect(waited).toBeLessThan(STREAM_LINGER_MS + 500);
    log.emit({ type: 'run.finished', status: 'completed', answer: 'slow', usage, durationMs: 5 });
    await log.committed();
    await cursor.return?.();
  });
});

/** The seq of the last event in appends[0..i] (seqs start at 1, in append order). */
function countUpTo(appends: { types: string[] }[], i: number): number {
  return appends.slice(0, i + 1).reduce((n, a) => n + a.types.length, 0);
}
