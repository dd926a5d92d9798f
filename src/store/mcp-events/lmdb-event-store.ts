/**
 * The MCP Streamable HTTP event store (docs/protocols/mcp.md "Resuming a stream"): every SSE message the
 * SDK transport sends is kept under its stream, so a client whose connection dropped reconnects with
 * Last-Event-ID and gets the rest of the `ask` (progress, then the result) replayed. Kept in the data
 * dir's LMDB environment (named database `mcp-events`), so a cut stream resumes however long the gap
 * while the session lives.
 *
 * Bounded two ways: a stream keeps its newest `maxEventsPerStream` events (older ones are deleted as new
 * ones arrive), and `sweep()` deletes events older than `maxAgeMs`. An event id is `<stream id>|<seq>`,
 * so replay is one ordered range read and no second index is needed.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Kv } from '../kv.ts';

export const DEFAULT_MAX_EVENTS_PER_STREAM = 1000;
export const DEFAULT_MAX_EVENT_AGE_MS = 24 * 3_600_000;

interface StoredEvent {
  at: number;
  message: JSONRPCMessage;
}

/**
 * An MCP session as another process needs it to serve the session's next request (a replica behind a
 * load balancer, or this server after a restart): who opened it, and the initialize request it opened with.
 */
export interface McpSessionRecord {
  id: string;
  callerId: string;
  /** The client's initialize request (JSON-RPC), replayed to set a fresh server instance up as it was. */
  initialize: unknown;
  /** Epoch ms of its opening or last revival; the age bound counts from here. */
  at: number;
}

export interface McpEventStore extends EventStore {
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  /** Deletes events and session records older than the age bound; returns how many events went. */
  sweep(now?: number): Promise<number>;
  putSession(session: McpSessionRecord): Promise<void>;
  getSession(id: string): Promise<McpSessionRecord | undefined>;
  deleteSession(id: string): Promise<void>;
}

export const SEPARATOR = '|';

/** `<stream id>|<seq>` apart, or undefined for an id no store hands out. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const at = eventId.lastIndexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const seq = Number(eventId.slice(at + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { streamId: eventId.slice(0, at), seq } : undefined;
}

export function createLmdbMcpEventStore(
  kv: Kv,
  options: { maxEventsPerStream?: number; maxAgeMs?: number } = {},
): McpEventStore {
  const db = kv.db<StoredEvent>('mcp-events');
  const sessions = kv.db<McpSessionRecord>('mcp-sessions');
  const maxPerStream = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_EVENT_AGE_MS;
  // The last sequence number per stream this process wrote; read back from the store on first use.
  const lastSeq = new Map<string, number>();

  function nextSeq(streamId: string): number {
    let last = lastSeq.get(streamId);
    if (last === undefined) {
      last = -1;
      for (const key of db.getKeys({
        start: [streamId, Number.MAX_SAFE_INTEGER],
        end: [streamId, -1],
        reverse: true,
        limit: 1,
      }))
        last = Number((key as [string, number])[1]);
    }
    lastSeq.set(streamId, last + 1);
    return last + 1;
  }

  return {
    async storeEvent(streamId, message) {
      const seq = nextSeq(streamId);
      await db.put([streamId, seq], { at: Date.now(), message });
      if (seq >= maxPerStream) await db.remove([streamId, seq - maxPerStream]);
      return `${streamId}${SEPARATOR}${seq}`;
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parseEventId(eventId);
      return parsed && db.get([parsed.streamId, parsed.seq]) !== undefined ? parsed.streamId : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parseEventId(lastEventId);
      if (!parsed || db.get([parsed.streamId, parsed.seq]) === undefined) throw new Error('unknown event id');
      const { streamId, seq } = parsed;
      for (const { key, value } of db.getRange({
        start: [streamId, seq + 1],
        end: [streamId, Number.MAX_SAFE_INTEGER],
      })) {
        // The priming event of a stream is an empty object, not a message: nothing to replay.
        if (Object.keys(value.message).length === 0) continue;
        await send(`${streamId}${SEPARATOR}${String((key as [string, number])[1])}`, value.message);
      }
      return streamId;
    },
    async putSession(session) {
      await sessions.put(session.id, session);
    },
    async getSession(id) {
      const found = sessions.get(id);
      return found && found.at >= Date.now() - maxAgeMs ? found : undefined;
    },
    async deleteSession(id) {
      await sessions.remove(id);
    },
    async sweep(now = Date.now()) {
      const cutoff = now - maxAgeMs;
      for (const { key, value } of sessions.getRange({})) if (value.at < cutoff) await sessions.remove(key);
      let removed = 0;
      for (const { key, value } of db.getRange({})) {
        if (value.at >= cutoff) continue;
        await db.remove(key);
        removed += 1;
      }
      return removed;
    },
  };
}
