/**
 * The ThreadStore on Postgres (issue 17): the contract of test/integration/store/threads.contract.ts on
 * two tables (migration 2). An append is one transaction that locks the thread's row (SELECT … FOR
 * UPDATE, or the insert that creates it), so two replicas appending to one thread keep its turns in
 * order; the per-thread turn cap and the per-caller thread cap are applied in the same transaction.
 */
import type { Pool } from 'pg';
import {
  MAX_THREAD_ID_CHARS,
  TITLE_CHARS,
  type Thread,
  type ThreadRetention,
  type ThreadStore,
  type ThreadSummary,
  type ThreadTurn,
} from '../threads/types.ts';
import { inTransaction } from './transaction.ts';

interface Row {
  thread_id: string;
  created_at: string;
  updated_at: string;
  turn_count: number;
  title: string;
}

const summaryOf = (r: Row): ThreadSummary => ({
  threadId: r.thread_id,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  turnCount: r.turn_count,
  title: r.title,
});

export function createPostgresThreadStore(
  pool: Pool,
  retention: ThreadRetention,
  now: () => number = Date.now,
): ThreadStore {
  const oldest = () => now() - retention.maxAgeMs;
  return {
    async appendTurn(callerId, threadId, turn) {
      if (threadId.length > MAX_THREAD_ID_CHARS)
        throw new RangeError(`thread ids are at most ${MAX_THREAD_ID_CHARS} characters`);
      await inTransaction(pool, async (client) => {
        const at = now();
        // An expired thread is gone: its next turn starts it afresh.
        await client.query('DELETE FROM parley_threads WHERE caller_id = $1 AND thread_id = $2 AND updated_at < $3', [
          callerId,
          threadId,
          oldest(),
        ]);
        const created = await client.query(
          `INSERT INTO parley_threads (caller_id, thread_id, created_at, updated_at, turn_count, title, next_seq)
           VALUES ($1, $2, $3, $3, 0, $4, 0) ON CONFLICT DO NOTHING`,
          [callerId, threadId, at, turn.user.slice(0, TITLE_CHARS)],
        );
        const { rows } = await client.query<{ next_seq: number }>(
          'SELECT next_seq FROM parley_threads WHERE caller_id = $1 AND thread_id = $2 FOR UPDATE',
          [callerId, threadId],
        );
        const seq = rows[0]!.next_seq;
        await client.query(
          'INSERT INTO parley_thread_turns (caller_id, thread_id, seq, turn) VALUES ($1, $2, $3, $4)',
          [callerId, threadId, seq, JSON.stringify(turn)],
        );
        await client.query(
          `UPDATE parley_threads SET next_seq = next_seq + 1, turn_count = turn_count + 1, updated_at = $3
           WHERE caller_id = $1 AND thread_id = $2`,
          [callerId, threadId, at],
        );
        await client.query('DELETE FROM parley_thread_turns WHERE caller_id = $1 AND thread_id = $2 AND seq <= $3', [
          callerId,
          threadId,
          seq - retention.maxTurnsPerThread,
        ]);
        if (created.rowCount === 1) {
          // The per-caller cap: the least recently updated threads go first.
          await client.query(
            `DELETE FROM parley_threads WHERE caller_id = $1 AND thread_id IN (
               SELECT thread_id FROM parley_threads WHERE caller_id = $1 AND thread_id <> $2
               ORDER BY updated_at DESC, thread_id OFFSET $3)`,
            [callerId, threadId, Math.max(0, retention.maxThreadsPerCaller - 1)],
          );
        }
      });
    },

    async getThread(callerId, threadId) {
      if (threadId.length > MAX_THREAD_ID_CHARS) return undefined;
      const { rows } = await pool.query<Row>(
        `SELECT thread_id, created_at, updated_at, turn_count, title FROM parley_threads
         WHERE caller_id = $1 AND thread_id = $2 AND updated_at >= $3`,
        [callerId, threadId, oldest()],
      );
      if (!rows[0]) return undefined;
      const turns = await pool.query<{ turn: ThreadTurn }>(
        'SELECT turn FROM parley_thread_turns WHERE caller_id = $1 AND thread_id = $2 ORDER BY seq',
        [callerId, threadId],
      );
      const thread: Thread = { ...summaryOf(rows[0]), turns: turns.rows.map((r) => r.turn) };
      return thread;
    },

    async listThreads(callerId, options = {}) {
      const { rows } = await pool.query<Row>(
        `SELECT thread_id, created_at, updated_at, turn_count, title FROM parley_threads
         WHERE caller_id = $1 AND updated_at >= $2 ORDER BY updated_at DESC, thread_id
         ${options.limit !== undefined ? 'LIMIT $3' : ''}`,
        options.limit !== undefined ? [callerId, oldest(), options.limit] : [callerId, oldest()],
      );
      return rows.map(summaryOf);
    },

    async deleteThread(callerId, threadId) {
      if (threadId.length > MAX_THREAD_ID_CHARS) return false;
      const { rows } = await pool.query<{ updated_at: string }>(
        'DELETE FROM parley_threads WHERE caller_id = $1 AND thread_id = $2 RETURNING updated_at',
        [callerId, threadId],
      );
      return rows.length > 0 && Number(rows[0]!.updated_at) >= oldest();
    },

    async sweep() {
      const { rowCount } = await pool.query('DELETE FROM parley_threads WHERE updated_at < $1', [oldest()]);
      return rowCount ?? 0;
    },
  };
}
