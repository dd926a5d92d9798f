/**
 * The SDK's TaskStore over Parley's A2ATaskStore port (src/store/a2a-tasks/): tasks scoped by tenant
 * and owner, ListTasks filters, order and page tokens as @a2a-js/sdk's InMemoryTaskStore has them, and
 * the bound on finished tasks (PARLEY_A2A_TASK_RETENTION_MAX) kept by the port. With the LMDB backend
 * (what `parley serve` uses) a task survives a restart; every save is committed before it resolves,
 * so before the SDK acknowledges anything. This file only maps: SDK types ⇄ the port's plain records
 * (the task as A2A's JSON form, its state name and status timestamp beside it for the queries).
 */
import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { resolveUserScope, type OwnerResolver, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import {
  fitsKey,
  MAX_TASK_KEY_CHARS,
  type A2ATaskStore,
  type StoredTask,
  type TaskScope,
} from '../../store/a2a-tasks/types.ts';

/** The SDK's default ListTasks page size (DefaultRequestHandler passes its own, validated, in practice). */
const DEFAULT_PAGE_SIZE = 50;

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export const isTerminal = (task: Task): boolean => task.status?.state !== undefined && TERMINAL.has(task.status.state);

/** Page tokens in the SDK's format (base64 of `timestamp|id`), so tokens stay what clients already hold. */
const encodePageToken = (timestamp: string, id: string) => Buffer.from(`${timestamp}|${id}`).toString('base64');

function decodePageToken(token: string): { statusTimestamp: string; id: string } {
  const [statusTimestamp = '', ...idParts] = Buffer.from(token, 'base64').toString('utf-8').split('|');
  if (idParts.length === 0) throw new RequestMalformedError('Invalid page token format.');
  return { statusTimestamp, id: idParts.join('|') };
}

export function toStored(task: Task): StoredTask {
  return {
    id: task.id,
    contextId: task.contextId,
    state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
    statusTimestamp: task.status?.timestamp || '',
    terminal: isTerminal(task),
    task: Task.toJSON(task) as Record<string, unknown>,
  };
}

export const fromStored = (stored: StoredTask): Task => Task.fromJSON(stored.task);

/** A stored task with the scope it belongs to and the last run event it reflects. */
export interface UnfinishedTask {
  scope: TaskScope;
  task: Task;
  runSeq: number | undefined;
}

export class ParleyTaskStore implements TaskStore {
  readonly #ownerOf: OwnerResolver;

  constructor(
    private readonly port: A2ATaskStore,
    ownerResolver: OwnerResolver = resolveUserScope,
  ) {
    this.#ownerOf = ownerResolver;
  }

  /** Whose tasks a call sees: its tenant and its owner (the authenticated user name). */
  scopeOf(context: ServerCallContext): TaskScope {
    return { tenant: context.tenant ?? '', owner: this.#ownerOf(context) };
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const stored = await this.port.get(this.scopeOf(context), taskId);
    return stored && fromStored(stored);
  }

  /** The task with the last run event it reflects (a subscriber on another replica follows on from there). */
  async loadWithSeq(taskId: string, context: ServerCallContext): Promise<{ task: Task; runSeq: number } | undefined> {
    const stored = await this.port.get(this.scopeOf(context), taskId);
    return stored && { task: fromStored(stored), runSeq: stored.runSeq ?? 0 };
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const scope = this.scopeOf(context);
    if (!fitsKey(scope, task.id))
      throw new RequestMalformedError(`tenants and task ids are at most ${MAX_TASK_KEY_CHARS} characters`);
    await this.port.put(scope, toStored(task));
  }

  /** ListTasks as the SDK's InMemoryTaskStore answers it: newest status first, cursor page tokens. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { contextId, status, pageSize = DEFAULT_PAGE_SIZE, pageToken, statusTimestampAfter } = params;
    const page = await this.port.list(this.scopeOf(context), {
      pageSize,
      ...(contextId ? { contextId } : {}),
      ...(status !== undefined && status !== TaskState.TASK_STATE_UNSPECIFIED
        ? { state: taskStateToJSON(status) }
        : {}),
      ...(statusTimestampAfter ? { statusAfter: statusTimestampAfter } : {}),
      ...(pageToken ? { after: decodePageToken(pageToken) } : {}),
    });
    const last = page.tasks.at(-1);
    return {
      tasks: page.tasks.map((stored) => {
        const task = fromStored(stored);
        if (!params.includeArtifacts) task.artifacts = [];
        return task;
      }),
      nextPageToken: last && page.more ? encodePageToken(last.statusTimestamp, last.id) : '',
      pageSize,
      totalSize: page.total,
    };
  }

  /** Records that the task reflects the run's events up to `seq` (see A2ARunBridge.recover). */
  setRunSeq(taskId: string, context: ServerCallContext, seq: number): Promise<void> {
    return this.port.setRunSeq(this.scopeOf(context), taskId, seq);
  }

  /** Every task not finished, over every scope: what a starting process follows again. */
  async listUnfinished(): Promise<UnfinishedTask[]> {
    return (await this.port.listUnfinished()).map((t) => ({ scope: t.scope, task: fromStored(t), runSeq: t.runSeq }));
  }
}
