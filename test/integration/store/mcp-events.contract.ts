/**
 * The MCP event store contract (docs/protocols/mcp.md "Resuming a stream"): every backend (LMDB,
 * Postgres) runs it. `open` returns a fresh, empty store with the given bounds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { McpEventStore } from '../../../src/store/mcp-events/lmdb-event-store.ts';

export interface OpenedMcpEventStore {
  store: McpEventStore;
  close(): Promise<void>;
}

export const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progress: n, progressToken: 1 },
});

const progressOf = (m: JSONRPCMessage) => ('params' in m ? (m.params as { progress: number }).progress : undefined);

export async function replay(store: McpEventStore, after: string) {
  const got: { id: string; message: JSONRPCMessage }[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, message) => void got.push({ id, message }) });
  return { stream, got };
}

export function mcpEventStoreContract(
  name: string,
  open: (options: { maxEventsPerStream?: number; maxAgeMs?: number }) => Promise<OpenedMcpEventStore>,
): void {
  describe(`MCP event store contract: ${name}`, () => {
    const opened: OpenedMcpEventStore[] = [];
    const make = async (options: { maxEventsPerStream?: number; maxAgeMs?: number } = {}) => {
      const o = await open(options);
      opened.push(o);
      return o.store;
    };
    afterEach(async () => {
      for (const o of opened.splice(0)) await o.close();
    });

    it('replays the events of one stream after the given id, skipping the priming event, and not those of another stream', async () => {
      const store = await make();
      const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
      const first = await store.storeEvent('s1', note(1));
      await store.storeEvent('s2', note(99));
      await store.storeEvent('s1', note(2));
      await store.storeEvent('s1', note(3));
      expect(await store.getStreamIdForEventId(first)).toBe('s1');
      expect(await store.getStreamIdForEventId('s1|999999')).toBeUndefined();
      expect(await store.getStreamIdForEventId('garbage')).toBeUndefined();
      const fromPriming = await replay(store, priming);
      expect(fromPriming.stream).toBe('s1');
      expect(fromPriming.got.map((g) => progressOf(g.message))).toEqual([1, 2, 3]);
      const fromFirst = await replay(store, first);
      expect(fromFirst.got.map((g) => progressOf(g.message))).toEqual([2, 3]);
      await expect(replay(store, 'nope|1')).rejects.toThrow();
    });

    it('keeps the newest events per stream and sweeps old ones', async () => {
      const store = await make({ maxEventsPerStream: 3, maxAgeMs: 1000 });
      const ids: string[] = [];
      for (let n = 0; n < 6; n += 1) ids.push(await store.storeEvent('s', note(n)));
      // The three oldest are gone: their ids are unknown now, and replay from the oldest kept one yields the rest.
      expect(await store.getStreamIdForEventId(ids[2]!)).toBeUndefined();
      expect(await store.getStreamIdForEventId(ids[3]!)).toBe('s');
      expect((await replay(store, ids[3]!)).got).toHaveLength(2);
      expect(await store.sweep(Date.now() + 500)).toBe(0);
      expect(await store.sweep(Date.now() + 2000)).toBe(3);
      expect(await store.getStreamIdForEventId(ids[5]!)).toBeUndefined();
    });

    it('keeps session records (who opened it, its initialize request) until deleted or past the age bound', async () => {
      const store = await make({ maxAgeMs: 60_000 });
      const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } };
      const record = { id: 'sess-1', callerId: 'key-a', initialize, at: Date.now() };
      await store.putSession(record);
      await store.putSession({ ...record, id: 'sess-old', at: Date.now() - 120_000 });
      expect(await store.getSession('sess-1')).toEqual(record);
      // Past the age bound it reads as gone at once, and the sweep deletes it.
      expect(await store.getSession('sess-old')).toBeUndefined();
      expect(await store.getSession('nope')).toBeUndefined();
      await store.putSession({ ...record, at: record.at + 1 });
      expect((await store.getSession('sess-1'))?.at).toBe(record.at + 1);
      await store.sweep();
      await store.putSession({ ...record, id: 'sess-old', at: Date.now() - 120_000 });
      await store.sweep();
      expect(await store.getSession('sess-1')).toBeDefined();
      await store.deleteSession('sess-1');
      expect(await store.getSession('sess-1')).toBeUndefined();
    });
  });
}
