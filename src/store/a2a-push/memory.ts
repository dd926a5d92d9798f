/** The A2APushStore in process memory: for an A2A endpoint built without the run store (tests). */
import type { A2APushStore, PushDelivery, StoredPushConfig, TaskScope } from './types.ts';

const taskKey = (scope: TaskScope, taskId: string) => JSON.stringify([scope.tenant, scope.owner, taskId]);

export function createMemoryA2aPushStore(): A2APushStore {
  const configs = new Map<string, Map<string, StoredPushConfig>>();
  const outbox = new Map<number, PushDelivery>();
  let next = 1;
  return {
    async putConfig(scope, taskId, config) {
      const key = taskKey(scope, taskId);
      const task = configs.get(key) ?? new Map<string, StoredPushConfig>();
      task.set(config.id, structuredClone(config));
      configs.set(key, task);
    },
    async listConfigs(scope, taskId) {
      return [...(configs.get(taskKey(scope, taskId))?.values() ?? [])].map((c) => structuredClone(c));
    },
    async deleteConfig(scope, taskId, id) {
      const key = taskKey(scope, taskId);
      if (id === undefined) configs.delete(key);
      else configs.get(key)?.delete(id);
      for (const [seq, d] of outbox)
        if (taskKey(d.scope, d.taskId) === key && (id === undefined || d.configId === id)) outbox.delete(seq);
    },
    async enqueue(deliveries) {
      return deliveries.map((d) => {
        const stored = { ...structuredClone(d), seq: next++ };
        outbox.set(stored.seq, stored);
        return structuredClone(stored);
      });
    },
    async countQueued(scope, taskId) {
      const key = taskKey(scope, taskId);
      return [...outbox.values()].filter((d) => taskKey(d.scope, d.taskId) === key).length;
    },
    async queued(limit) {
      return [...outbox.values()].slice(0, limit).map((d) => structuredClone(d));
    },
    async reschedule(delivery) {
      if (outbox.has(delivery.seq)) outbox.set(delivery.seq, structuredClone(delivery));
    },
    async remove(seq) {
      outbox.delete(seq);
    },
  };
}
