/**
 * The AcpSessionStore on Postgres (migration 3): one row per session, scoped by caller; a new session
 * beyond the per-caller cap drops the least recently updated ones in the same transaction.
 */
import type { Pool } from 'pg';
import {
  MAX_ACP_SESSION_ID_CHARS,
  type AcpSessionRecord,
  type AcpSessionRetention,
  type AcpSessionStore,
} from '../acp-sessions/types.ts';
import { inTransaction } from './transaction.ts';

export function createPostgresAcpSessionStore(
  pool: Pool,
  retention: AcpSessionRetention,
  now: () => number = Date.now,
): AcpSessionStore {
  const oldest = () => now() - retention.maxAgeMs;
  return {
    async put(callerId, record) {
      if (record.sessionId.length > MAX_ACP_SESSION_ID_CHARS)
        throw new RangeError(`session ids are at most ${MAX_ACP_SESSION_ID_CHARS} characters`);
      await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ inserted: boolean }>(
          `INSERT INTO parley_acp_sessions (caller_id, session_id, cwd, updated_at, record) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (caller_id, session_id)
           DO UPDATE SET cwd = EXCLUDED.cwd, updated_at = EXCLUDED.updated_at, record = EXCLUDED.record
           RETURNING (xmax = 0) AS inserted`,
          [callerId, record.sessionId, record.cwd, record.updatedAt, JSON.stringify(record)],
        );
        if (!rows[0]?.inserted) return;
        await client.query(
          `DELETE FROM parley_acp_sessions WHERE caller_id = $1 AND session_id IN (
             SELECT session_id FROM parley_acp_sessions WHERE caller_id = $1 AND session_id <> $2
             ORDER BY updated_at DESC, session_id OFFSET $3)`,
          [callerId, record.sessionId, Math.max(0, retention.maxPerCaller - 1)],
        );
      });
    },
    async get(callerId, sessionId) {
      if (sessionId.length > MAX_ACP_SESSION_ID_CHARS) return undefined;
      const { rows } = await pool.query<{ record: AcpSessionRecord }>(
        'SELECT record FROM parley_acp_sessions WHERE caller_id = $1 AND session_id = $2 AND updated_at >= $3',
        [callerId, sessionId, oldest()],
      );
      return rows[0]?.record;
    },
    async list(callerId, options = {}) {
      const { rows } = await pool.query<{ record: AcpSessionRecord }>(
        `SELECT record FROM parley_acp_sessions WHERE caller_id = $1 AND updated_at >= $2
         ${options.cwd !== undefined ? 'AND cwd = $3' : ''} ORDER BY updated_at DESC, session_id`,
        options.cwd !== undefined ? [callerId, oldest(), options.cwd] : [callerId, oldest()],
      );
      return rows.map((r) => r.record);
    },
  };
}
