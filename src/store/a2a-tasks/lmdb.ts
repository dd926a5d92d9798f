/**
 * The embedded A2ATaskStore over the run store's LMDB environment (kv.ts). Three named databases:
 * `a2a-tasks` keyed [tenant, owner, taskId] holds the tasks (the scope leads every key, so a scope's
 * range never reaches another's); `a2a-task-seqs`, same keys, the run seq each task reflects (apart,
 * so recording it, once per projected event, writes a number rather than the whole task again: half
 * the cost per event); `a2a-tasks-finished` keyed by a growing number holds the keys of the finished
 * tasks in the order they finished, the first one dropped first. Each put is one write transaction
 * (the task, its place in the queue and any drop together), committed before it resolves.
 */
import type { Kv } from '../kv.ts';
import { selectPage } from './query.ts';
import {
  checkRetention,
  fitsKey,
  MAX_TASK_KEY_CHARS,
  type A2ATaskRetention,
  type A2ATaskStore,
  type StoredTask,
  type TaskScope,
} from './types.ts';

interface Row extends Omit<StoredTask, 'runSeq'> {
  /** Its key in the finished queue, while terminal. */
  finishedSeq?: number;
}

type TaskKey = [string, string, string];

const keyOf = (scope: TaskScope, id: string): TaskKey => [scope.tenant, scope.owner, id];
const scopeEnd = (scope: TaskScope) => [scope.tenant, `${scope.owner}\u0000`];

function plain(row: Row, runSeq: number | undefined): StoredTask {
  const { finishedSeq: _, ...task } = row;
  return runSeq === undefined ? task : { ...task, runSeq };
}

export function createLmdbA2aTaskStore(kv: Kv, retention: A2ATaskRetention): A2ATaskStore {
  checkRetention(retention);
  const tasks = kv.db<Row>('a2a-tasks');
  const finished = kv.db<TaskKey>('a2a-tasks-finished');
  const seqs = kv.db<number>('a2a-task-seqs');

  /** The next number of the finished queue (inside a write transaction). */
  const nextFinishedSeq = () => {
    for (const { key } of finished.getRange({ reverse: true, limit: 1 })) return (key as number) + 1;
    return 1;
  };

  return {
    async get(scope, id) {
      if (!fitsKey(scope, id)) return undefined;
      const key = keyOf(scope, id);
      const row = tasks.get(key);
      return row && plain(row, seqs.get(key));
    },

    async put(scope, task) {
      if (!fitsKey(scope, task.id))
        throw new RangeError(`tenants, owners and task ids are at most ${MAX_TASK_KEY_CHARS} characters`);
      const key = keyOf(scope, task.id);
      const { runSeq, ...record } = task;
      await tasks.transaction(() => {
        const old = tasks.get(key);
        const row: Row = { ...record };
        if (runSeq !== undefined) void seqs.put(key, runSeq);
        if (!task.terminal) {
          if (old?.finishedSeq !== undefined) void finished.remove(old.finishedSeq);
          void tasks.put(key, row);
          return;
        }
        // A finished task saved again keeps its place in the queue.
        if (old?.finishedSeq !== undefined) {
          row.finishedSeq = old.finishedSeq;
          void tasks.put(key, row);
          return;
        }
        row.finishedSeq = nextFinishedSeq();
        void finished.put(row.finishedSeq, key);
        void tasks.put(key, row);
        const excess = finished.getCount() - retention.maxFinished;
        if (excess <= 0) return;
        for (const { key: seq, value: dropped } of [...finished.getRange({ limit: excess })]) {
          void finished.remove(seq);
          void tasks.remove(dropped);
          void seqs.remove(dropped);
        }
      });
    },

    async setRunSeq(scope, id, seq) {
      if (!fitsKey(scope, id)) return;
      const key = keyOf(scope, id);
      if (tasks.doesExist(key)) await seqs.put(key, seq);
    },

    async list(scope, query) {
      if (!fitsKey(scope, '')) return { tasks: [], total: 0, more: false };
      const rows = [...tasks.getRange({ start: [scope.tenant, scope.owner], end: scopeEnd(scope) })];
      return selectPage(
        rows.map((e) => plain(e.value, seqs.get(e.key))),
        query,
      );
    },

    async listUnfinished() {
      const out = [];
      for (const { key, value } of tasks.getRange({})) {
        if (value.terminal) continue;
        const [tenant, owner] = key as TaskKey;
        out.push({ ...plain(value, seqs.get(key)), scope: { tenant, owner } });
      }
      return out;
    },
  };
}
