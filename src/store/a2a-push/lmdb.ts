/**
 * The embedded A2APushStore over the run store's LMDB environment (kv.ts). Two named databases:
 * `a2a-push-configs` keyed [tenant, owner, taskId, configId], and `a2a-push-outbox` keyed by a growing
 * number (the delivery's seq, so a range read is the send order). Every write is committed before it
 * resolves: a delivery enqueued is sent after a restart, kill -9 included.
 */
import type { Kv } from '../kv.ts';
import type { A2APushStore, PushDelivery, StoredPushConfig, TaskScope } from './types.ts';

type ConfigKey = [string, string, string, string];

const configKey = (scope: TaskScope, taskId: string, id: string): ConfigKey => [scope.tenant, scope.owner, taskId, id];
const sameTask = (d: PushDelivery, scope: TaskScope, taskId: string) =>
  d.taskId === taskId && d.scope.tenant === scope.tenant && d.scope.owner === scope.owner;

export function createLmdbA2aPushStore(kv: Kv): A2APushStore {
  const configs = kv.db<StoredPushConfig>('a2a-push-configs');
  const outbox = kv.db<PushDelivery>('a2a-push-outbox');
  const taskRange = (scope: TaskScope, taskId: string) => ({
    start: [scope.tenant, scope.owner, taskId],
    end: [scope.tenant, scope.owner, `${taskId}\u0000`],
  });
  const nextSeq = () => {
    for (const { key } of outbox.getRange({ reverse: true, limit: 1 })) return (key as number) + 1;
    return 1;
  };

  return {
    async putConfig(scope, taskId, config) {
      await configs.put(configKey(scope, taskId, config.id), config);
    },
    async listConfigs(scope, taskId) {
      return [...configs.getRange(taskRange(scope, taskId))].map(({ value }) => value);
    },
    async deleteConfig(scope, taskId, id) {
      await kv.db('a2a-push-configs').transaction(() => {
        const keys =
          id === undefined
            ? [...configs.getRange(taskRange(scope, taskId))].map(({ key }) => key)
            : [configKey(scope, taskId, id)];
        for (const key of keys) configs.removeSync(key);
        for (const { key, value } of outbox.getRange())
          if (sameTask(value, scope, taskId) && (id === undefined || value.configId === id)) outbox.removeSync(key);
      });
    },
    async enqueue(deliveries) {
      return outbox.transaction(() => {
        let seq = nextSeq();
        return deliveries.map((d) => {
          const stored: PushDelivery = { ...d, seq: seq++ };
          outbox.putSync(stored.seq, stored);
          return stored;
        });
      });
    },
    async countQueued(scope, taskId) {
      let n = 0;
      for (const { value } of outbox.getRange()) if (sameTask(value, scope, taskId)) n++;
      return n;
    },
    async queued(limit) {
      return [...outbox.getRange({ limit })].map(({ value }) => value);
    },
    async reschedule(delivery) {
      await outbox.transaction(() => {
        if (outbox.get(delivery.seq)) outbox.putSync(delivery.seq, delivery);
      });
    },
    async remove(seq) {
      await outbox.remove(seq);
    },
  };
}
