/**
 * Retention of finished runs (src/graph/retention/finished-runs.ts) against a real LMDB run store:
 * a run whose log the store holds leaves the heap and is served from the store; one it does not
 * hold, and every run without a store, stays in memory within the byte budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunHandle } from '../../../src/graph/contract.ts';
import { persistEvents } from '../../../src/graph/durable/persist-events.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import { ApprovalBroker } from '../../../src/hitl/approvals.ts';
import { runApprovals } from '../../../src/graph/run/approvals.ts';
import { FinishedRuns, logBytes } from '../../../src/graph/retention/finished-runs.ts';
import { RunEventLog } from '../../../src/graph/run/event-log.ts';
import { silentLogger } from '../../../src/log.ts';
import { openKv } from '../../../src/store/kv.ts';
import { settledHeap } from '../../support/fuzz/harness.ts';
import { openLmdbRunStore } from '../../../src/store/runs/lmdb/lmdb-run-store.ts';
import type { RunStore } from '../../../src/store/runs/run-store.ts';
import { runningRecord } from '../../support/records.ts';

/** The real broker the engine hands retention: stored handles list and answer approvals through it. */
const approvals = new ApprovalBroker({ timeoutMs: 60_000, defaultDecision: 'deny' });
const usage = { inputTokens: 1, outputTokens: 2, cachedTokens: 0, costUsd: 0, modelCalls: 1, toolCalls: 0 };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function openStore(): RunStore {
  const dir = mkdtempSync(join(tmpdir(), 'parley-finished-runs-'));
  const store = openLmdbRunStore(openKv(dir));
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** A finished run as the engine leaves it: its log (persisted when `store` is given) and its live handle. */
async function finishedRun(
  id: string,
  store?: RunStore,
  answer = 'the answer',
): Promise<{ log: RunEventLog; handle: RunHandle }> {
  const record = runningRecord(id);
  if (store) await store.runs.put(record);
  const persist = store ? persistEvents(store, { record, plan: () => undefined }, silentLogger) : undefined;
  const log = new RunEventLog(id, { buffer: 100, ...(persist ? { persist } : {}) });
  log.emit({ type: 'run.started', threadId: record.threadId, query: 'q', mode: 'auto', protocol: 'test' });
  for (const word of answer.split(' ')) log.emit({ type: 'answer.delta', text: `${word} ` });
  log.emit({ type: 'run.finished', status: 'completed', answer, usage, durationMs: 5 });
  const events: GraphEvent[] = [];
  for await (const e of log.events()) events.push(e); // past every commit
  const handle: RunHandle = {
    id,
    threadId: record.threadId,
    callerId: 'c1',
    admission: Promise.resolve({ admitted: true }) as RunHandle['admission'],
    result: Promise.resolve({
      runId: id,
      threadId: record.threadId,
      status: 'completed',
      answer,
      usage,
      durationMs: 5,
    }),
    events: (after) => log.events(after),
    lastSeq: () => log.lastSeq,
    ...runApprovals(approvals, id, 'c1'),
  };
  return { log, handle };
}

async function collect(events: AsyncIterable<GraphEvent>): Promise<GraphEvent[]> {
  const out: GraphEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const limits = { retentionMs: 60_000, max: 100, budgetBytes: 1024 * 1024 };

describe('finished runs with a run store', () => {
  it('leave the heap once the store holds their log, and replay from it the same events and result', async () => {
    const store = openStore();
    const finished = new FinishedRuns(limits, { now: Date.now, logger: silentLogger, store, approvals });
    cleanups.push(() => finished.close());
    const { log, handle } = await finishedRun('r1', store);
    finished.add(handle, log);
    expect(finished.get('r1')).toBe(handle); // until the store is seen to have it all
    await vi.waitFor(() => expect(finished.get('r1')).not.toBe(handle));
    const stored = finished.get('r1')!;
    expect(finished.bytesInMemory).toBe(0);
    expect(stored.lastSeq).toBeUndefined();
    expect([stored.id, stored.threadId, stored.callerId]).toEqual(['r1', 't-r1', 'c1']);
    expect(await collect(stored.events())).toEqual(log.snapshot());
    expect(await collect(stored.events(2))).toEqual(log.snapshot(2)); // Last-Event-ID
    expect(await stored.result).toEqual(await handle.result);
  });

  it('keeps in memory a run whose log the store does not hold, and forgets what it drops', async () => {
    const store = openStore();
    const finished = new FinishedRuns({ ...limits, max: 1 }, { now: Date.now, logger: silentLogger, store, approvals });
    cleanups.push(() => finished.close());
    const { log, handle } = await finishedRun('lost'); // never written to the store
    finished.add(handle, log);
    await vi.waitFor(() => expect(finished.bytesInMemory).toBe(logBytes(log)));
    expect(finished.get('lost')).toBe(handle);

    const kept = await finishedRun('kept', store);
    finished.add(kept.handle, kept.log); // over the count cap: 'lost' goes
    expect(finished.has('lost')).toBe(false);
    expect(finished.bytesInMemory).toBe(0);
    await vi.waitFor(() => expect(finished.get('kept')).not.toBe(kept.handle));
    const other = await finishedRun('third', store);
    finished.add(other.handle, other.log); // 'kept' goes, and the store forgets it
    await vi.waitFor(async () => expect(await store.runs.get('kept')).toBeUndefined());
    expect(await store.events.read('kept')).toEqual([]);
  });

  it('cost the heap a few hundred bytes each once served from the store, up to the count cap', async () => {
    const store = openStore();
    const max = 3000;
    const measure = async (round: number) => {
      const finished = new FinishedRuns({ ...limits, max }, { now: Date.now, logger: silentLogger, store, approvals });
      cleanups.push(() => finished.close());
      const ids = (i: number) => ({ id: `run-${round}-${i}`, threadId: `thread-${i}`, callerId: 'c1' });
      for (let i = 0; i < 100; i++) finished.addStored(ids(-1 - i), Date.now());
      const before = await settledHeap();
      for (let i = 0; i < max - 100; i++) finished.addStored(ids(i), Date.now());
      return { finished, perRun: ((await settledHeap()) - before) / (max - 100) };
    };
    // What else the process allocates meanwhile only adds to a reading (CI, with other files running beside
    // it, once read 341 B): the least of up to three rounds is the runs' own cost.
    let { finished, perRun } = await measure(0);
    let last = 0;
    while (last < 2 && perRun >= 330) {
      finished.close();
      const again = await measure(++last);
      finished = again.finished;
      perRun = Math.min(perRun, again.perRun);
    }
    expect(finished.size).toBe(max);
    // Its two ids (~60 bytes), the handle, the retention entry and the map's slots: ~230 bytes measured.
    // Two closures per handle for its approvals, with their context, were ~200 bytes more.
    expect(perRun).toBeLessThan(330);
    // Still answering its approvals, through the broker, scoped to its run.
    const handle = finished.get(`run-${last}-7`)!;
    expect(handle.pendingApprovals()).toEqual([]);
    expect(await handle.resolve('nope', { kind: 'tool', decisions: {} }, 'tester')).toMatchObject({
      ok: false,
      code: 'not_found',
    });
  });
});

describe('finished runs without a run store', () => {
  it('stay in memory within the byte budget, the oldest dropped first', async () => {
    const runs = await Promise.all(['a', 'b', 'c'].map((id) => finishedRun(id, undefined, 'word '.repeat(50))));
    const each = logBytes(runs[0]!.log);
    const finished = new FinishedRuns(
      { ...limits, budgetBytes: 2 * each + 10 },
      { now: Date.now, logger: silentLogger, approvals },
    );
    cleanups.push(() => finished.close());
    for (const r of runs) finished.add(r.handle, r.log);
    expect(finished.has('a')).toBe(false);
    expect(finished.get('b')).toBe(runs[1]!.handle);
    expect(finished.get('c')).toBe(runs[2]!.handle);
    expect(finished.bytesInMemory).toBe(2 * each);
  });

  it('are dropped once retention expires', async () => {
    let now = 1_000;
    const finished = new FinishedRuns(
      { ...limits, retentionMs: 20 },
      { now: () => now, logger: silentLogger, approvals },
    );
    cleanups.push(() => finished.close());
    const { log, handle } = await finishedRun('old');
    finished.add(handle, log);
    now += 21;
    await vi.waitFor(() => expect(finished.size).toBe(0));
    expect(finished.bytesInMemory).toBe(0);
  });
});
