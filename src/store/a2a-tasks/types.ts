/**
 * A2A task persistence (docs/protocols/a2a.md, "Tasks across a restart"): the tasks the A2A adapter
 * hands out, scoped by tenant and owner (two callers never see each other's tasks), bounded in how many
 * finished tasks are kept. Plain data: the task itself is A2A's JSON form, opaque here; the adapter
 * (src/protocols/a2a/task-store.ts) maps it to and from the SDK's types. The interface is async so a
 * networked backend (Postgres, issue 17) can implement it; test/integration/store/a2a-tasks.contract.ts
 * is the suite every backend runs.
 */

/** Whose task it is: the A2A tenant (client-chosen, '' for none) and the owner (the caller). */
export interface TaskScope {
  tenant: string;
  owner: string;
}

export interface StoredTask {
  id: string;
  contextId: string;
  /** The A2A state name (TASK_STATE_WORKING, …). */
  state: string;
  /** When the current status was set (ISO 8601), '' when the task has no status timestamp. */
  statusTimestamp: string;
  /** Completed, failed, cancelled or rejected: such a task counts against the bound and may be dropped. */
  terminal: boolean;
  /** The task in A2A's JSON form. */
  task: Record<string, unknown>;
  /**
   * The last run event (seq) the task reflects, so a process that starts again follows the run from
   * there. Absent when nothing was applied yet; a put without it keeps the stored one.
   */
  runSeq?: number;
}

export interface TaskQuery {
  /** Only tasks of this context. */
  contextId?: string;
  /** Only tasks in this state (an A2A state name). */
  state?: string;
  /** Only tasks whose status timestamp is later than this instant (ISO 8601). */
  statusAfter?: string;
  /** At most this many tasks (at least 1). */
  pageSize: number;
  /**
   * Continue after this task of an earlier page. When it is no longer in the result (dropped, or its
   * status changed since), the page is empty: a client restarts its listing rather than skipping tasks.
   */
  after?: { statusTimestamp: string; id: string };
}

export interface TaskPage {
  /** Newest status first; equal timestamps by id, descending (code-unit order, as SQL's "C" collation). */
  tasks: StoredTask[];
  /** How many tasks match the filters, over every page. */
  total: number;
  /** True when tasks follow this page. */
  more: boolean;
}

export interface ScopedTask extends StoredTask {
  scope: TaskScope;
}

export interface A2ATaskRetention {
  /** How many finished tasks are kept at most, over every scope; beyond it the one that finished first goes. */
  maxFinished: number;
}

export interface A2ATaskStore {
  get(scope: TaskScope, id: string): Promise<StoredTask | undefined>;
  /**
   * Creates or replaces the scope's task; committed before it resolves. A task that turns terminal joins
   * the finished queue (a terminal task saved again keeps its place); beyond maxFinished the one that
   * finished first is dropped. Tasks not terminal are never dropped.
   */
  put(scope: TaskScope, task: StoredTask): Promise<void>;
  /** Records the last run event the task reflects (no-op for an unknown task). */
  setRunSeq(scope: TaskScope, id: string, seq: number): Promise<void>;
  list(scope: TaskScope, query: TaskQuery): Promise<TaskPage>;
  /** Every task not terminal, over every scope: what a starting process follows again. */
  listUnfinished(): Promise<ScopedTask[]>;
}

/**
 * Tenants, owners and task ids are parts of a stored key (LMDB keys are at most 1978 bytes): longer
 * ones are never stored (put throws a RangeError) or found.
 */
export const MAX_TASK_KEY_CHARS = 200;

export const fitsKey = (scope: TaskScope, id: string): boolean =>
  scope.tenant.length <= MAX_TASK_KEY_CHARS &&
  scope.owner.length <= MAX_TASK_KEY_CHARS &&
  id.length <= MAX_TASK_KEY_CHARS;

export function checkRetention(retention: A2ATaskRetention): void {
  if (!Number.isInteger(retention.maxFinished) || retention.maxFinished < 1)
    throw new RangeError('A2A task store: maxFinished must be a positive integer');
}
