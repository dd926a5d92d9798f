/**
 * The run store's write queue (src/store/runs/reliable-run-store.ts) over the real LMDB store: it keeps
 * the RunStore contract, and while the backend refuses writes (an outage switched on and off around the
 * real store) a run's writes are retried in order, so its event log never has a hole; past the retry
 * window the run is degraded (listed, logged with its id, callers released) until its writes commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/log.ts';
import { openKv } from '../../../src/store/kv.ts';
import { openLmdbRunStore } from '../../../src/store/runs/lmdb/lmdb-run-store.ts';
import { reliableRunStore } from '../../../src/store/runs/reliable-run-store.ts';
import type { RunStore, StoredEvent } from '../../../src/store/runs/run-store.ts';
import { defineRunStoreContract } from './run-store.contract.ts';
import { persistEvents } from '../../../src/graph/durable/persist-events.ts';
import { RunEventLog } from '../../../src/graph/run/event-log.ts';

const silent = createLogger('silent');

describe('the reliable write queue over LMDB', () => {
  defineRunStoreContract({
    place: () => mkdtempSync(join(tmpdir(), 'parley-reliable-store-')),
    open: async (dataDir) => reliableRunStore(openLmdbRunStore(openKv(dataDir)), { logger: silent }),
    remove: (dataDir) => rmSync(dataDir, { recursive: true, force: true }),
  });
});

/** The real store, with its writes refused while `down` (as node-postgres fails them while the server restarts). */
function withOutage(store: RunStore) {
  const state = { down: false, refused: 0 };
  const refuse = () => {
    state.refused += 1;
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  const gated =
    <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      await new Promise((r) => setTimeout(r, 1));
      if (state.down) refuse();
      return write(...args);
    };
  const wrapped: RunStore = {
    ...store,
    runs: { ...store.runs, put: gated((r) => store.runs.put(r)) },
    checkpoints: { ...store.checkpoints, saveStep: gated((id, s) => store.checkpoints.saveStep(id, s)) },
    events: { ...store.events, append: gated((id, list) => store.events.append(id, list)) },
  };
  return { store: wrapped, state };
}

const event = (seq: number): StoredEvent => ({ seq, type: 'answer.delta', text: `t${seq}` });

describe('a run store outage', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const open = (degradeAfterMs: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-outage-'));
    dirs.push(dir);
    const real = openLmdbRunStore(openKv(dir));
    const outage = withOutage(real);
    const lines: string[] = [];
    const logger = createLogger('info', (l) => lines.push(l));
    const store = reliableRunStore(outage.store, { logger, degradeAfterMs, firstBackoffMs: 10, maxBackoffMs: 50 });
    return { store, real, outage, lines };
  };

  it('retries a run’s appends in order: the stored log is 1..n with no hole, and nobody is told of a failure', async () => {
    const { store, real, outage, lines } = open(10_000);
    const appended: Promise<void>[] = [];
    for (let seq = 1; seq <= 4; seq++) appended.push(store.events.append('r1', [event(seq)]));
    await Promise.all(appended);
    outage.state.down = true;
    for (let seq = 5; seq <= 12; seq++) appended.push(store.events.append('r1', [event(seq)]));
    await vi.waitFor(() => expect(outage.state.refused).toBeGreaterThan(3));
    // Nothing after the failing write is stored meanwhile (a reader never sees seq N+1 before N).
    expect((await real.events.read('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    outage.state.down = false;
    await Promise.all(appended);
    expect((await real.events.read('r1')).map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(store.degraded()).toEqual([]);
    expect(lines.join('\n')).toContain('appending events failed; retrying');
    await store.close();
  });

  it('past the window the run is degraded (listed, logged with its id, callers released) and caught up once the store is back', async () => {
    const { store, real, outage, lines } = open(200);
    await store.events.append('r2', [event(1)]);
    outage.state.down = true;
    const t0 = Date.now();
    await expect(store.events.append('r2', [event(2)])).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    // Later writes of a degraded run are not held either, and wait their turn behind the failing one.
    await expect(store.events.append('r2', [event(3)])).rejects.toThrow(/cannot write run r2/);
    await expect(store.runs.put(runRecord('r2'))).rejects.toThrow(/cannot write run r2/);
    expect(store.degraded()).toEqual([expect.objectContaining({ runId: 'r2', what: 'appending events' })]);
    expect(lines.find((l) => l.includes('the run is degraded'))).toContain('"runId":"r2"');
    // Another run is not affected once the store is back, and the degraded one catches up in order.
    outage.state.down = false;
    await store.events.append('r3', [event(1)]);
    await vi.waitFor(() => expect(store.degraded()).toEqual([]));
    expect((await real.events.read('r2')).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await real.runs.get('r2'))?.status).toBe('completed');
    expect(lines.join('\n')).toContain('committed again');
    await store.close();
  });

  it('closing during an outage gives the writes up, each logged with its run id', async () => {
    const { store, outage, lines } = open(10_000);
    outage.state.down = true;
    const pending = store.events.append('r4', [event(1)]);
    await vi.waitFor(() => expect(outage.state.refused).toBeGreaterThan(0));
    // Listened to before close(): close waits for the queue, which gives the write up while it waits.
    const givenUp = expect(pending).rejects.toThrow(/ECONNREFUSED/);
    await store.close();
    await givenUp;
    expect(lines.find((l) => l.includes('is lost'))).toContain('"runId":"r4"');
  });
});

function runRecord(id: string) {
  return {
    id,
    callerId: 'local',
    threadId: 't',
    status: 'completed' as const,
    request: {},
    createdAt: 1,
    updatedAt: 2,
  };
}

describe('events persisted in batches (graph/durable/persist-events.ts), then the store closed', () => {
  it('keeps every event emitted, the batch gathered while the previous one committed included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-batches-'));
    try {
      const store = reliableRunStore(openLmdbRunStore(openKv(dir)), { logger: silent });
      const record = {
        id: 'run-1',
        callerId: 'c',
        threadId: 'run-1',
        status: 'running' as const,
        request: { query: 'q' },
        createdAt: 1,
        updatedAt: 1,
      };
      const log = new RunEventLog(record.id, {
        buffer: 10_000,
        persist: persistEvents(store, { record, plan: () => undefined }, silent),
      });
      const seen: number[] = [];
      const consumed = (async () => {
        for await (const e of log.events()) seen.push(e.seq);
      })();
      log.emit({ type: 'answer.delta', text: 'first ' });
      // The first batch is on its way; these gather into the next one, sent when it commits.
      await Promise.resolve();
      await Promise.resolve();
      for (let i = 0; i < 50; i++) log.emit({ type: 'answer.delta', text: `w${i} ` });
      log.end();
      // Closed while the first batch commits and the second waits for it: both must be written.
      await store.close();
      await consumed;
      const reopened = openLmdbRunStore(openKv(dir));
      const stored = (await reopened.events.read(record.id)).map((e) => e.seq);
      await reopened.close();
      expect(stored).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
      expect(seen).toEqual(stored.slice(0, seen.length));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
