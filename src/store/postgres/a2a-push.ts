/**
 * The A2APushStore on Postgres (migration 3): configs keyed by scope, task and id; the outbox a
 * bigserial-ordered table (the seq is the send order, as in the embedded store). Every write is one
 * statement or one transaction, committed before it resolves.
 */
import type { Pool } from 'pg';
import type { A2APushStore, PushDelivery, StoredPushConfig } from '../a2a-push/types.ts';
import { inTransaction } from './transaction.ts';

export function createPostgresA2aPushStore(pool: Pool): A2APushStore {
  return {
    async putConfig(scope, taskId, config) {
      await pool.query(
        `INSERT INTO parley_a2a_push_configs (tenant, owner, task_id, config_id, config) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, owner, task_id, config_id) DO UPDATE SET config = EXCLUDED.config`,
        [scope.tenant, scope.owner, taskId, config.id, JSON.stringify(config)],
      );
    },
    async listConfigs(scope, taskId) {
      const { rows } = await pool.query<{ config: StoredPushConfig }>(
        `SELECT config FROM parley_a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 ORDER BY config_id`,
        [scope.tenant, scope.owner, taskId],
      );
      return rows.map((r) => r.config);
    },
    async deleteConfig(scope, taskId, id) {
      await inTransaction(pool, async (client) => {
        const args = id === undefined ? [scope.tenant, scope.owner, taskId] : [scope.tenant, scope.owner, taskId, id];
        const which = `tenant = $1 AND owner = $2 AND task_id = $3${id === undefined ? '' : ' AND config_id = $4'}`;
        await client.query(`DELETE FROM parley_a2a_push_configs WHERE ${which}`, args);
        await client.query(`DELETE FROM parley_a2a_push_outbox WHERE ${which}`, args);
      });
    },
    async enqueue(deliveries) {
      return inTransaction(pool, async (client) => {
        const stored: PushDelivery[] = [];
        for (const d of deliveries) {
          const { rows } = await client.query<{ seq: string }>(
            `INSERT INTO parley_a2a_push_outbox (tenant, owner, task_id, config_id, delivery)
             VALUES ($1, $2, $3, $4, $5) RETURNING seq`,
            [d.scope.tenant, d.scope.owner, d.taskId, d.configId, JSON.stringify(d)],
          );
          const delivery: PushDelivery = { ...d, seq: Number(rows[0]!.seq) };
          stored.push(delivery);
        }
        return stored;
      });
    },
    async countQueued(scope, taskId) {
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM parley_a2a_push_outbox WHERE tenant = $1 AND owner = $2 AND task_id = $3',
        [scope.tenant, scope.owner, taskId],
      );
      return Number(rows[0]!.n);
    },
    async queued(limit) {
      const { rows } = await pool.query<{ seq: string; delivery: Omit<PushDelivery, 'seq'> }>(
        'SELECT seq, delivery FROM parley_a2a_push_outbox ORDER BY seq LIMIT $1',
        [limit],
      );
      return rows.map((r) => ({ ...r.delivery, seq: Number(r.seq) }));
    },
    async reschedule(delivery) {
      const { seq: _seq, ...rest } = delivery;
      await pool.query('UPDATE parley_a2a_push_outbox SET delivery = $2 WHERE seq = $1', [
        delivery.seq,
        JSON.stringify(rest),
      ]);
    },
    async remove(seq) {
      await pool.query('DELETE FROM parley_a2a_push_outbox WHERE seq = $1', [seq]);
    },
  };
}
