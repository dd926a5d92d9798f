/**
 * The A2ATaskStore in process memory: what a2aRoutes uses when it is given no store (tests that build
 * an A2A endpoint over a bare engine). Same contract as the LMDB backend; nothing survives the process.
 */
import { selectPage } from './query.ts';
import {
  checkRetention,
  fitsKey,
  MAX_TASK_KEY_CHARS,
  type A2ATaskRetention,
  type A2ATaskStore,
  type ScopedTask,
  type StoredTask,
  type TaskScope,
} from './types.ts';

const keyOf = (scope: TaskScope, id: string) => JSON.stringify([scope.tenant, scope.owner, id]);

export function createMemoryA2aTaskStore(retention: A2ATaskRetention): A2ATaskStore {
  checkRetention(retention);
  /** Every task by its key (structured clones: callers never share an object with the store). */
  const tasks = new Map<string, ScopedTask>();
  /** Keys of finished tasks in the order they finished: the first one is dropped first. */
  const finished = new Set<string>();
  const copy = (t: ScopedTask): StoredTask => {
    const { scope: _, ...task } = structuredClone(t);
    return task;
  };

  return {
    async get(scope, id) {
      const task = tasks.get(keyOf(scope, id));
      return task && copy(task);
    },
    async put(scope, task) {
      if (!fitsKey(scope, task.id))
        throw new RangeError(`tenants, owners and task ids are at most ${MAX_TASK_KEY_CHARS} characters`);
      const key = keyOf(scope, task.id);
      const row: ScopedTask = { ...structuredClone(task), scope: { ...scope } };
      if (row.runSeq === undefined) delete row.runSeq;
      const kept = tasks.get(key)?.runSeq;
      if (row.runSeq === undefined && kept !== undefined) row.runSeq = kept;
      tasks.set(key, row);
      if (!task.terminal) {
        finished.delete(key);
        return;
      }
      finished.add(key); // a Set keeps the first insertion's place
      for (const oldest of finished) {
        if (finished.size <= retention.maxFinished) break;
        finished.delete(oldest);
        tasks.delete(oldest);
      }
    },
    async setRunSeq(scope, id, seq) {
      const task = tasks.get(keyOf(scope, id));
      if (task) task.runSeq = seq;
    },
    async list(scope, query) {
      const mine = [...tasks.values()].filter((t) => t.scope.tenant === scope.tenant && t.scope.owner === scope.owner);
      return selectPage(mine.map(copy), query);
    },
    async listUnfinished() {
      return [...tasks.values()].filter((t) => !t.terminal).map((t) => structuredClone(t));
    },
  };
}
