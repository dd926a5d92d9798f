/**
 * The A2ATaskStore on Postgres (migration 4): the contract of test/integration/store/a2a-tasks.contract.ts.
 * ListTasks is one query: the filters, newest status first then id descending in code-unit order
 * (COLLATE "C", as the embedded store compares), the cursor as a row comparison. The finished-task
 * bound is kept under a transaction-scoped advisory lock, so two replicas finishing tasks at once do
 * not both drop the same excess.
 */
import type { Pool } from 'pg';
import {
  checkRetention,
  fitsKey,
  MAX_TASK_KEY_CHARS,
  type A2ATaskRetention,
  type A2ATaskStore,
  type ScopedTask,
  type StoredTask,
} from '../a2a-tasks/types.ts';
import { inTransaction } from './transaction.ts';

const FINISHED_LOCK = 7_301_996;

interface Row {
  tenant: string;
  owner: string;
  id: string;
  context_id: string;
  state: string;
  status_ts: string;
  terminal: boolean;
  task: Record<string, unknown>;
  run_seq: number | null;
}

const COLUMNS = 'tenant, owner, id, context_id, state, status_ts, terminal, task, run_seq';

function storedOf(r: Row): StoredTask {
  return {
    id: r.id,
    contextId: r.context_id,
    state: r.state,
    statusTimestamp: r.status_ts,
    terminal: r.terminal,
    task: r.task,
    ...(r.run_seq !== null ? { runSeq: r.run_seq } : {}),
  };
}

const msOf = (timestamp: string) => {
  const ms = timestamp === '' ? NaN : Date.parse(timestamp);
  return Number.isNaN(ms) ? null : ms;
};

export function createPostgresA2aTaskStore(pool: Pool, retention: A2ATaskRetention): A2ATaskStore {
  checkRetention(retention);
  return {
    async get(scope, id) {
      if (!fitsKey(scope, id)) return undefined;
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM parley_a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`,
        [scope.tenant, scope.owner, id],
      );
      return rows[0] && storedOf(rows[0]);
    },

    async put(scope, task) {
      if (!fitsKey(scope, task.id))
        throw new RangeError(`tenants, owners and task ids are at most ${MAX_TASK_KEY_CHARS} characters`);
      await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ finished_seq: string | null }>(
          'SELECT finished_seq FROM parley_a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3 FOR UPDATE',
          [scope.tenant, scope.owner, task.id],
        );
        const old = rows[0];
        const newlyFinished = task.terminal && (old === undefined || old.finished_seq === null);
        if (newlyFinished) await client.query('SELECT pg_advisory_xact_lock($1)', [FINISHED_LOCK]);
        // A finished task saved again keeps its place in the queue; an unfinished one has none.
        const finishedSeq = !task.terminal
          ? null
          : newlyFinished
            ? (await client.query<{ seq: string }>(`SELECT nextval('parley_a2a_finished_seq') AS seq`)).rows[0]!.seq
            : old!.finished_seq;
        await client.query(
          `INSERT INTO parley_a2a_tasks (tenant, owner, id, context_id, state, status_ts, status_ms, terminal, task, run_seq, finished_seq)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (tenant, owner, id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state,
             status_ts = EXCLUDED.status_ts, status_ms = EXCLUDED.status_ms, terminal = EXCLUDED.terminal,
             task = EXCLUDED.task, run_seq = COALESCE(EXCLUDED.run_seq, parley_a2a_tasks.run_seq),
             finished_seq = EXCLUDED.finished_seq`,
          [
            scope.tenant,
            scope.owner,
            task.id,
            task.contextId,
            task.state,
            task.statusTimestamp,
            msOf(task.statusTimestamp),
            task.terminal,
            JSON.stringify(task.task),
            task.runSeq ?? null,
            finishedSeq,
          ],
        );
        if (!newlyFinished) return;
        await client.query(
          `DELETE FROM parley_a2a_tasks WHERE finished_seq IN (
             SELECT finished_seq FROM parley_a2a_tasks WHERE finished_seq IS NOT NULL ORDER BY finished_seq
             LIMIT GREATEST(0, (SELECT count(*) FROM parley_a2a_tasks WHERE finished_seq IS NOT NULL) - $1))`,
          [retention.maxFinished],
        );
      });
    },

    async setRunSeq(scope, id, seq) {
      if (!fitsKey(scope, id)) return;
      await pool.query('UPDATE parley_a2a_tasks SET run_seq = $4 WHERE tenant = $1 AND owner = $2 AND id = $3', [
        scope.tenant,
        scope.owner,
        id,
        seq,
      ]);
    },

    async list(scope, query) {
      if (!fitsKey(scope, '')) return { tasks: [], total: 0, more: false };
      const args: unknown[] = [scope.tenant, scope.owner];
      const where = ['tenant = $1', 'owner = $2'];
      const arg = (value: unknown) => `$${args.push(value)}`;
      if (query.contextId !== undefined) where.push(`context_id = ${arg(query.contextId)}`);
      if (query.state !== undefined) where.push(`state = ${arg(query.state)}`);
      if (query.statusAfter !== undefined) {
        // An instant that is not one matches nothing (as the embedded store's comparison with NaN).
        const afterMs = new Date(query.statusAfter).getTime();
        where.push(Number.isNaN(afterMs) ? 'FALSE' : `status_ms > ${arg(afterMs)}`);
      }
      const filters = where.join(' AND ');
      const total = Number(
        (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM parley_a2a_tasks WHERE ${filters}`, args)).rows[0]!
          .n,
      );
      let page = filters;
      const pageArgs = [...args];
      if (query.after) {
        // A cursor whose task left the result (dropped, or its status changed) gives an empty page.
        const at = await pool.query(
          `SELECT 1 FROM parley_a2a_tasks WHERE ${filters} AND status_ts = $${args.length + 1} AND id = $${args.length + 2}`,
          [...args, query.after.statusTimestamp, query.after.id],
        );
        if (at.rowCount === 0) return { tasks: [], total, more: false };
        const ts = `$${pageArgs.push(query.after.statusTimestamp)}`;
        const id = `$${pageArgs.push(query.after.id)}`;
        page += ` AND (status_ts COLLATE "C" < ${ts} OR (status_ts = ${ts} AND id COLLATE "C" < ${id}))`;
      }
      const { rows } = await pool.query<Row>(
        `SELECT ${COLUMNS} FROM parley_a2a_tasks WHERE ${page}
         ORDER BY status_ts COLLATE "C" DESC, id COLLATE "C" DESC LIMIT $${pageArgs.push(query.pageSize + 1)}`,
        pageArgs,
      );
      return { tasks: rows.slice(0, query.pageSize).map(storedOf), total, more: rows.length > query.pageSize };
    },

    async listUnfinished() {
      const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM parley_a2a_tasks WHERE NOT terminal`);
      return rows.map((r): ScopedTask => ({ ...storedOf(r), scope: { tenant: r.tenant, owner: r.owner } }));
    },
  };
}
