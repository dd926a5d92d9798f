/**
 * The A2A task store: the SDK's in-memory semantics (tasks scoped by tenant and owner, ListTasks
 * filters, ordering and page tokens as @a2a-js/sdk's InMemoryTaskStore has them), plus a bound. A task
 * is a run, and the SDK's InMemoryTaskStore keeps every task forever with no way to delete one, so a
 * long-lived server grew by every task's history and artifacts. Here at most `maxFinished` finished
 * (terminal) tasks are kept; beyond that the task that finished first is dropped (GetTask then
 * answers task-not-found). Tasks still running or waiting for input are never dropped.
 */
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { resolveUserScope, type OwnerResolver, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';

/** The SDK's default ListTasks page size (DefaultRequestHandler passes its own, validated, in practice). */
const DEFAULT_PAGE_SIZE = 50;

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export const isTerminal = (task: Task): boolean => task.status?.state !== undefined && TERMINAL.has(task.status.state);

export interface BoundedTaskStoreOptions {
  /** How many finished tasks are kept at most, over every tenant and owner (at least 1). */
  maxFinished: number;
  /** Who owns a call's tasks (default: the SDK's resolveUserScope, the authenticated user name). */
  ownerResolver?: OwnerResolver;
}

interface Scope {
  tenant: string;
  owner: string;
}

/** Page tokens in the SDK's format (base64 of `timestamp|id`), so tokens stay what clients already hold. */
const encodePageToken = (timestamp: string, id: string) => Buffer.from(`${timestamp}|${id}`).toString('base64');

function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp = '', ...idParts] = Buffer.from(token, 'base64').toString('utf-8').split('|');
  if (idParts.length === 0) throw new RequestMalformedError('Invalid page token format.');
  return { timestamp, id: idParts.join('|') };
}

export class BoundedTaskStore implements TaskStore {
  readonly #maxFinished: number;
  readonly #ownerOf: OwnerResolver;
  /** tenant → owner → taskId → task (stored as a private copy). */
  readonly #scopes = new Map<string, Map<string, Map<string, Task>>>();
  /** Finished tasks in the order they finished: the first one is dropped first. */
  readonly #finished = new Map<string, Scope & { id: string }>();

  constructor(options: BoundedTaskStoreOptions) {
    if (!Number.isInteger(options.maxFinished) || options.maxFinished < 1)
      throw new Error('BoundedTaskStore: maxFinished must be a positive integer');
    this.#maxFinished = options.maxFinished;
    this.#ownerOf = options.ownerResolver ?? resolveUserScope;
  }

  /** Tasks held (every state), over every tenant and owner. */
  get size(): number {
    let n = 0;
    for (const owners of this.#scopes.values()) for (const tasks of owners.values()) n += tasks.size;
    return n;
  }

  /** Finished tasks held. */
  get finished(): number {
    return this.#finished.size;
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.#bucket(this.#scope(context))?.get(taskId);
    return task ? structuredClone(task) : undefined;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const scope = this.#scope(context);
    let owners = this.#scopes.get(scope.tenant);
    if (!owners) this.#scopes.set(scope.tenant, (owners = new Map()));
    let tasks = owners.get(scope.owner);
    if (!tasks) owners.set(scope.owner, (tasks = new Map()));
    tasks.set(task.id, structuredClone(task));

    const key = JSON.stringify([scope.tenant, scope.owner, task.id]);
    if (!isTerminal(task)) {
      this.#finished.delete(key);
      return;
    }
    // A finished task saved again (the SDK and the run's pump both persist the last events) keeps its place.
    if (!this.#finished.has(key)) this.#finished.set(key, { ...scope, id: task.id });
    while (this.#finished.size > this.#maxFinished) {
      const [oldest, where] = this.#finished.entries().next().value as [string, Scope & { id: string }];
      this.#finished.delete(oldest);
      this.#drop(where);
    }
  }

  /** ListTasks as the SDK's InMemoryTaskStore answers it: newest status first, cursor page tokens. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const {
      contextId,
      status,
      pageSize = DEFAULT_PAGE_SIZE,
      pageToken,
      statusTimestampAfter,
      includeArtifacts = false,
    } = params;
    let tasks = [...(this.#bucket(this.#scope(context))?.values() ?? [])];
    if (contextId) tasks = tasks.filter((t) => t.contextId === contextId);
    if (status !== undefined && status !== TaskState.TASK_STATE_UNSPECIFIED)
      tasks = tasks.filter((t) => t.status?.state === status);
    if (statusTimestampAfter) {
      const after = new Date(statusTimestampAfter).getTime();
      tasks = tasks.filter((t) => t.status?.timestamp && new Date(t.status.timestamp).getTime() > after);
    }
    const stamp = (t: Task) => t.status?.timestamp || '';
    tasks.sort((a, b) => (stamp(b) !== stamp(a) ? stamp(b).localeCompare(stamp(a)) : b.id.localeCompare(a.id)));
    const totalSize = tasks.length;
    if (pageToken) {
      const cursor = decodePageToken(pageToken);
      const at = tasks.findIndex((t) => stamp(t) === cursor.timestamp && t.id === cursor.id);
      tasks = at === -1 ? [] : tasks.slice(at + 1);
    }
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((t) => {
        const copy = structuredClone(t);
        if (!includeArtifacts) copy.artifacts = [];
        return copy;
      }),
      nextPageToken: last && tasks.length > page.length ? encodePageToken(stamp(last), last.id) : '',
      pageSize,
      totalSize,
    };
  }

  #scope(context: ServerCallContext): Scope {
    return { tenant: context.tenant ?? '', owner: this.#ownerOf(context) };
  }

  #bucket(scope: Scope): Map<string, Task> | undefined {
    return this.#scopes.get(scope.tenant)?.get(scope.owner);
  }

  /** Removes one task, and its owner's and tenant's maps once empty (tenants are client-chosen strings). */
  #drop({ tenant, owner, id }: Scope & { id: string }): void {
    const owners = this.#scopes.get(tenant);
    const tasks = owners?.get(owner);
    if (!owners || !tasks) return;
    tasks.delete(id);
    if (tasks.size === 0) owners.delete(owner);
    if (owners.size === 0) this.#scopes.delete(tenant);
  }
}
