/**
 * The RunStore on Postgres (issue 17): the same contract as the embedded LMDB store
 * (test/integration/store/run-store.contract.ts), so several Parley processes can share runs,
 * checkpoints, event logs and approvals. Every write is one statement or one transaction, committed
 * before its promise resolves. Tables: migrations.ts (version 1).
 */
import { orderedAppends } from './ordered-appends.ts';
import type { Pool } from 'pg';
import type {
  ApprovalRecords,
  RunCheckpoints,
  RunEventLogs,
  RunRecords,
  RunStore,
  StoredApproval,
  StoredEvent,
  StoredRun,
  StoredStep,
} from '../runs/run-store.ts';
import { inTransaction } from './transaction.ts';

const json = (value: unknown) => JSON.stringify(value ?? null);

export function openPostgresRunStore(pool: Pool, options: { closePool?: boolean } = {}): RunStore {
  const runs: RunRecords = {
    async put(run) {
      await pool.query(
        `INSERT INTO parley_runs (id, status, updated_at, record) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, updated_at = EXCLUDED.updated_at, record = EXCLUDED.record`,
        [run.id, run.status, run.updatedAt, json(run)],
      );
    },
    async get(id) {
      const { rows } = await pool.query<{ record: StoredRun }>('SELECT record FROM parley_runs WHERE id = $1', [id]);
      return rows[0]?.record;
    },
    async listUnfinished() {
      const { rows } = await pool.query<{ record: StoredRun }>(
        `SELECT record FROM parley_runs WHERE status = 'running' ORDER BY id`,
      );
      return rows.map((r) => r.record);
    },
    async listFinished() {
      const { rows } = await pool.query<{ record: StoredRun }>(
        `SELECT record FROM parley_runs WHERE status <> 'running' ORDER BY updated_at, id`,
      );
      return rows.map((r) => r.record);
    },
    async markRemembered(ids) {
      if (ids.length === 0) return;
      await pool.query(
        `UPDATE parley_runs SET record = jsonb_set(record, '{remembered}', 'true')
         WHERE id = ANY($1::text[]) AND record->>'remembered' = 'false'`,
        [ids],
      );
    },
  };

  const checkpoints: RunCheckpoints = {
    async savePlan(runId, plan, round) {
      await pool.query(
        `INSERT INTO parley_run_plans (run_id, round, plan) VALUES ($1, $2, $3)
         ON CONFLICT (run_id) DO UPDATE SET round = EXCLUDED.round, plan = EXCLUDED.plan`,
        [runId, round, json(plan)],
      );
    },
    async saveStep(runId, step) {
      await pool.query(
        `INSERT INTO parley_run_steps (run_id, step_id, step) VALUES ($1, $2, $3)
         ON CONFLICT (run_id, step_id) DO UPDATE SET step = EXCLUDED.step`,
        [runId, step.stepId, json(step)],
      );
    },
    async load(runId) {
      const [plans, steps] = await Promise.all([
        pool.query<{ plan: unknown; round: number }>('SELECT plan, round FROM parley_run_plans WHERE run_id = $1', [
          runId,
        ]),
        pool.query<{ step: StoredStep }>('SELECT step FROM parley_run_steps WHERE run_id = $1 ORDER BY step_id', [
          runId,
        ]),
      ]);
      const head = plans.rows[0];
      if (!head && steps.rows.length === 0) return undefined;
      return {
        steps: steps.rows.map((r) => r.step),
        ...(head ? { plan: head.plan, planRound: head.round } : {}),
      };
    },
  };

  // One statement per batch: committed together, in order; batches of a run one after the other.
  const insertEvents = orderedAppends(async (runId, list) => {
    await pool.query(
      `INSERT INTO parley_run_events (run_id, seq, event)
       SELECT $1, e.seq, e.event FROM jsonb_to_recordset($2::jsonb) AS e(seq integer, event jsonb)
       ON CONFLICT (run_id, seq) DO NOTHING`,
      [runId, JSON.stringify(list.map((event) => ({ seq: event.seq, event })))],
    );
  });
  const events: RunEventLogs = {
    async append(runId, list) {
      if (list.length === 0) return;
      await insertEvents(runId, list);
    },
    async read(runId, afterSeq = 0, limit) {
      const { rows } = await pool.query<{ event: StoredEvent }>(
        `SELECT event FROM parley_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq ${limit !== undefined ? 'LIMIT $3' : ''}`,
        limit !== undefined ? [runId, afterSeq, limit] : [runId, afterSeq],
      );
      return rows.map((r) => r.event);
    },
  };

  const approvals: ApprovalRecords = {
    async putPending(a) {
      const record: StoredApproval = { ...a, status: 'pending' };
      await pool.query(
        `INSERT INTO parley_run_approvals (id, run_id, status, approval) VALUES ($1, $2, 'pending', $3)
         ON CONFLICT (id) DO UPDATE SET status = 'pending', approval = EXCLUDED.approval`,
        [a.id, a.runId, json(record)],
      );
    },
    async decide(id, outcome) {
      await pool.query(
        `UPDATE parley_run_approvals
         SET status = 'decided',
             approval = approval || jsonb_build_object('status', 'decided', 'outcome', $2::jsonb, 'updatedAt', $3::bigint)
         WHERE id = $1`,
        [id, json(outcome), Date.now()],
      );
    },
    async get(id) {
      const { rows } = await pool.query<{ approval: StoredApproval }>(
        'SELECT approval FROM parley_run_approvals WHERE id = $1',
        [id],
      );
      return rows[0]?.approval;
    },
    async listPending() {
      const { rows } = await pool.query<{ approval: StoredApproval }>(
        `SELECT approval FROM parley_run_approvals WHERE status = 'pending' ORDER BY id`,
      );
      return rows.map((r) => r.approval);
    },
    async listForRun(runId) {
      const { rows } = await pool.query<{ approval: StoredApproval }>(
        'SELECT approval FROM parley_run_approvals WHERE run_id = $1 ORDER BY id',
        [runId],
      );
      return rows.map((r) => r.approval);
    },
  };

  return {
    runs,
    checkpoints,
    events,
    approvals,
    async forget(runId) {
      await inTransaction(pool, async (client) => {
        for (const table of ['parley_run_events', 'parley_run_steps', 'parley_run_plans', 'parley_run_approvals'])
          await client.query(`DELETE FROM ${table} WHERE run_id = $1`, [runId]);
        await client.query('DELETE FROM parley_runs WHERE id = $1', [runId]);
      });
    },
    async close() {
      if (options.closePool !== false) await pool.end();
    },
  };
}
