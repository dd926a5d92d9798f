/** The MCP event store over LMDB: replay after an id, the per-stream bound, the age sweep, a restart on the same dir. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbMcpEventStore } from '../../../src/store/mcp-events/lmdb-event-store.ts';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progress: n, progressToken: 1 },
});

const progressOf = (m: JSONRPCMessage) => ('params' in m ? (m.params as { progress: number }).progress : undefined);

async function replay(store: ReturnType<typeof createLmdbMcpEventStore>, after: string) {
  const got: { id: string; message: JSONRPCMessage }[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void got.push({ id, message }) });
  return { stream, got };
}

describe('LMDB MCP event store', () => {
  it('replays the events of one stream after the given id, skipping the priming event, and not those of another stream', async () => {
    const kv = openKv(':memory:');
    const store = createLmdbMcpEventStore(kv);
    const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
    const first = await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(99));
    await store.storeEvent('s1', note(2));
    await store.storeEvent('s1', note(3));
    expect(await store.getStreamIdForEventId(first)).toBe('s1');
    expect(await store.getStreamIdForEventId('s1|999')).toBeUndefined();
    expect(await store.getStreamIdForEventId('garbage')).toBeUndefined();
    const fromPriming = await replay(store, priming);
    expect(fromPriming.stream).toBe('s1');
    expect(fromPriming.got.map((g) => progressOf(g.message))).toEqual([1, 2, 3]);
    const fromFirst = await replay(store, first);
    expect(fromFirst.got.map((g) => progressOf(g.message))).toEqual([2, 3]);
    await expect(replay(store, 'nope|1')).rejects.toThrow();
    await kv.close();
  });

  it('keeps the newest events per stream and sweeps old ones', async () => {
    const kv = openKv(':memory:');
    const store = createLmdbMcpEventStore(kv, { maxEventsPerStream: 3, maxAgeMs: 1000 });
    const ids: string[] = [];
    for (let n = 0; n < 6; n += 1) ids.push(await store.storeEvent('s', note(n)));
    // The three oldest are gone: their ids are unknown now, and replay from the oldest kept one yields the rest.
    expect(await store.getStreamIdForEventId(ids[2]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[3]!)).toBe('s');
    expect((await replay(store, ids[3]!)).got).toHaveLength(2);
    expect(await store.sweep(Date.now() + 500)).toBe(0);
    expect(await store.sweep(Date.now() + 2000)).toBe(3);
    expect(await store.getStreamIdForEventId(ids[5]!)).toBeUndefined();
    await kv.close();
  });

  it('survives a restart on the same data dir and continues the numbering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-events-'));
    let kv = openKv(dir);
    const first = await createLmdbMcpEventStore(kv).storeEvent('s', note(1));
    await kv.close();
    kv = openKv(dir);
    const store = createLmdbMcpEventStore(kv);
    const second = await store.storeEvent('s', note(2));
    expect(second).not.toBe(first);
    expect((await replay(store, first)).got.map((g) => g.id)).toEqual([second]);
    await kv.close();
  });
});
