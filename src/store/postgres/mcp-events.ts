/**
 * The MCP Streamable HTTP event store on Postgres (migration 5; session records, migration 6): the contract of the embedded one
 * (store/mcp-events/lmdb-event-store.ts; test/integration/store/mcp-events.contract.ts). An event id
 * is `<stream id>|<seq>`; seq comes from one bigserial, so it grows across streams and processes and
 * replay is one ordered range read. Bounded the same two ways: the newest `maxEventsPerStream` per
 * stream, and `sweep()` by age.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Pool } from 'pg';
import {
  DEFAULT_MAX_EVENT_AGE_MS,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  parseEventId,
  SEPARATOR,
  type McpEventStore,
} from '../mcp-events/lmdb-event-store.ts';

export function createPostgresMcpEventStore(
  pool: Pool,
  options: { maxEventsPerStream?: number; maxAgeMs?: number } = {},
): McpEventStore {
  const maxPerStream = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS_PER_STREAM;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_EVENT_AGE_MS;
  const exists = async (streamId: string, seq: number) =>
    (await pool.query('SELECT 1 FROM parley_mcp_events WHERE stream_id = $1 AND seq = $2', [streamId, seq]))
      .rowCount !== 0;

  return {
    async storeEvent(streamId, message) {
      const { rows } = await pool.query<{ seq: string }>(
        'INSERT INTO parley_mcp_events (stream_id, at, message) VALUES ($1, $2, $3) RETURNING seq',
        [streamId, Date.now(), JSON.stringify(message)],
      );
      const seq = rows[0]!.seq;
      await pool.query(
        `DELETE FROM parley_mcp_events WHERE stream_id = $1 AND seq IN (
           SELECT seq FROM parley_mcp_events WHERE stream_id = $1 ORDER BY seq DESC OFFSET $2)`,
        [streamId, maxPerStream],
      );
      return `${streamId}${SEPARATOR}${seq}`;
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parseEventId(eventId);
      return parsed && (await exists(parsed.streamId, parsed.seq)) ? parsed.streamId : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parseEventId(lastEventId);
      if (!parsed || !(await exists(parsed.streamId, parsed.seq))) throw new Error('unknown event id');
      const { rows } = await pool.query<{ seq: string; message: JSONRPCMessage }>(
        'SELECT seq, message FROM parley_mcp_events WHERE stream_id = $1 AND seq > $2 ORDER BY seq',
        [parsed.streamId, parsed.seq],
      );
      for (const row of rows) {
        // The priming event of a stream is an empty object, not a message: nothing to replay.
        if (Object.keys(row.message).length === 0) continue;
        await send(`${parsed.streamId}${SEPARATOR}${row.seq}`, row.message);
      }
      return parsed.streamId;
    },
    async putSession(session) {
      await pool.query(
        `INSERT INTO parley_mcp_sessions (id, caller_id, initialize, at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET caller_id = EXCLUDED.caller_id, initialize = EXCLUDED.initialize, at = EXCLUDED.at`,
        [session.id, session.callerId, JSON.stringify(session.initialize), session.at],
      );
    },
    async getSession(id) {
      const { rows } = await pool.query<{ id: string; caller_id: string; initialize: unknown; at: string }>(
        'SELECT id, caller_id, initialize, at FROM parley_mcp_sessions WHERE id = $1 AND at >= $2',
        [id, Date.now() - maxAgeMs],
      );
      const row = rows[0];
      return row && { id: row.id, callerId: row.caller_id, initialize: row.initialize, at: Number(row.at) };
    },
    async deleteSession(id) {
      await pool.query('DELETE FROM parley_mcp_sessions WHERE id = $1', [id]);
    },
    async sweep(now = Date.now()) {
      await pool.query('DELETE FROM parley_mcp_sessions WHERE at < $1', [now - maxAgeMs]);
      const { rowCount } = await pool.query('DELETE FROM parley_mcp_events WHERE at < $1', [now - maxAgeMs]);
      return rowCount ?? 0;
    },
  };
}
