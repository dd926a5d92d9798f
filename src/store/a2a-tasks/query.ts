/**
 * ListTasks over one scope's tasks in memory: filters, order and the cursor, for the backends that
 * read a scope whole (LMDB, memory). A SQL backend says the same in its query.
 */
import type { StoredTask, TaskPage, TaskQuery } from './types.ts';

/** Newest status first, then id descending; code-unit order so every backend sorts alike. */
export function compareTasks(a: StoredTask, b: StoredTask): number {
  if (a.statusTimestamp !== b.statusTimestamp) return a.statusTimestamp < b.statusTimestamp ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  return 0;
}

export function selectPage(all: Iterable<StoredTask>, query: TaskQuery): TaskPage {
  const after = query.statusAfter === undefined ? undefined : new Date(query.statusAfter).getTime();
  const matching = [...all].filter(
    (t) =>
      (query.contextId === undefined || t.contextId === query.contextId) &&
      (query.state === undefined || t.state === query.state) &&
      (after === undefined || (t.statusTimestamp !== '' && new Date(t.statusTimestamp).getTime() > after)),
  );
  matching.sort(compareTasks);
  let rest = matching;
  if (query.after) {
    const { statusTimestamp, id } = query.after;
    const at = matching.findIndex((t) => t.statusTimestamp === statusTimestamp && t.id === id);
    rest = at === -1 ? [] : matching.slice(at + 1);
  }
  const tasks = rest.slice(0, query.pageSize);
  return { tasks, total: matching.length, more: rest.length > tasks.length };
}
