/**
 * A2ARunBridge: one A2A task = one engine run (taskId = runId, contextId = threadId).
 *
 * It is the SDK's AgentExecutor and its event-bus manager at once, because both answer the same
 * question: who owns a task's bus. A "pump" per run follows the engine's events for the whole run,
 * publishes the projected A2A events on the task's bus and persists them itself, so the task
 * stays current in the TaskStore even when no client is connected (after a disconnect, while
 * waiting for an approval that /api/approve resolves). The bus lives as long as the run: a stream
 * that stops at INPUT_REQUIRED, a resume message, SubscribeToTask and CancelTask all attach to it.
 */
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  ResultManager,
  type AgentExecutor,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { LOCAL_CALLER, type PriorMessage, type RunEngine, type RunHandle } from '../../graph/contract.ts';
import type { ApprovalPort, ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { ANSWER_ARTIFACT_ID, inputRequired, projectEvent, type Projection, type TaskIds } from './events.ts';
import { agentMessage, status, textOf, textPart } from './parts.ts';
import { readResume } from './resume.ts';
import { runModeOf, runModelsOf } from './options.ts';

interface LiveRun {
  runId: string;
  ids: TaskIds;
  projection: Projection;
  done: Promise<void>;
}

export interface A2ARunBridgeDeps {
  engine: RunEngine;
  approvals: ApprovalPort;
  taskStore: TaskStore;
  logger: Logger;
  /** Conversation turns taken from earlier tasks of the same context (default 20). */
  maxPriorTurns?: number;
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export class A2ARunBridge implements AgentExecutor, ExecutionEventBusManager {
  readonly #deps: A2ARunBridgeDeps;
  readonly #buses = new DefaultExecutionEventBusManager();
  readonly #live = new Map<string, LiveRun>();

  constructor(deps: A2ARunBridgeDeps) {
    this.#deps = deps;
  }

  /** Approvals the task's run is waiting for (what a resume message must answer). */
  pendingFor(taskId: string): ApprovalRequest[] {
    const runId = this.#live.get(taskId)?.runId ?? taskId;
    return this.#deps.approvals.listPending(runId);
  }

  /** Settles once every pump has drained (for shutdown and tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.#live.values()].map((r) => r.done));
  }

  // ── AgentExecutor ────────────────────────────────────────────────────────────
  execute = async (rc: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    if (rc.task) return this.#resume(rc, bus, rc.task);
    return this.#start(rc, bus);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const live = this.#live.get(taskId);
    if (this.#deps.engine.cancel(live?.runId ?? taskId, 'cancelled by the A2A client')) return;
    // Not running: the pump (if any) publishes the terminal state it reached; otherwise say so here.
    if (!live) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: status(
            TaskState.TASK_STATE_CANCELED,
            agentMessage(taskId, '', [textPart('cancelled: no run was active')]),
          ),
          metadata: undefined,
        }),
      );
    }
  };

  // ── ExecutionEventBusManager ────────────────────────────────────────────────
  createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    return this.#buses.createOrGetByTaskId(taskId, context);
  }
  getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    return this.#buses.getByTaskId(taskId, context);
  }
  cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
    this.#buses.cleanupByTaskId(taskId, context);
  }
  /** A task with a live run keeps its bus until the run ends; the pump settles it then. */
  settleByTaskId(taskId: string): boolean {
    return this.#live.has(taskId);
  }

  // ── internals ────────────────────────────────────────────────────────────────
  async #start(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const ids: TaskIds = { taskId: rc.taskId, contextId: rc.contextId };
    const user = rc.context.user;
    const handle = this.#deps.engine.start({
      runId: rc.taskId,
      threadId: rc.contextId,
      query: textOf(rc.userMessage),
      messages: await this.#priorTurns(rc.contextId, rc.context),
      mode: runModeOf(rc.request),
      models: runModelsOf(rc.request),
      caller: user?.isAuthenticated ? { id: user.userName } : LOCAL_CALLER,
      protocol: 'a2a',
    });
    const task: Task = {
      id: rc.taskId,
      contextId: rc.contextId,
      status: status(TaskState.TASK_STATE_SUBMITTED),
      artifacts: [],
      history: [rc.userMessage],
      metadata: { parley: { runId: handle.id } },
    };
    const store = new ResultManager(this.#deps.taskStore, rc.context);
    store.setContext(rc.userMessage);
    // The SDK requires a task (or message) as the first event of every execution.
    bus.publish(AgentEvent.task(task));
    await store.processEvent(AgentEvent.task(task));
    this.#pump(handle, ids, bus, store, rc.context);
  }

  #pump(
    handle: RunHandle,
    ids: TaskIds,
    bus: ExecutionEventBus,
    store: ResultManager,
    context: ServerCallContext,
  ): void {
    const projection: Projection = { pending: new Map() };
    const live: LiveRun = { runId: handle.id, ids, projection, done: Promise.resolve() };
    this.#live.set(ids.taskId, live);
    live.done = (async () => {
      try {
        for await (const event of handle.events()) {
          for (const out of projectEvent(event, ids, projection)) {
            bus.publish(out);
            await store.processEvent(out);
          }
        }
      } catch (err) {
        this.#deps.logger.error('a2a: run pump failed', { taskId: ids.taskId, error: (err as Error).message });
        const failed = AgentEvent.statusUpdate({
          ...ids,
          status: status(
            TaskState.TASK_STATE_FAILED,
            agentMessage(ids.taskId, ids.contextId, [textPart('internal error while following the run')]),
          ),
          metadata: undefined,
        });
        bus.publish(failed);
        await store.processEvent(failed).catch(() => undefined);
      } finally {
        this.#live.delete(ids.taskId);
        bus.finished();
        this.#buses.cleanupByTaskId(ids.taskId, context);
      }
    })();
  }

  async #resume(rc: RequestContext, bus: ExecutionEventBus, task: Task): Promise<void> {
    const live = this.#live.get(task.id);
    // First event must be the task; it goes back to WORKING since the decision is applied next.
    bus.publish(AgentEvent.task({ ...task, status: status(TaskState.TASK_STATE_WORKING) }));
    const check = readResume(rc.userMessage, this.pendingFor(task.id));
    const answer = check.ok ? this.#deps.approvals.resolve(check.requestId, check.decision, 'a2a') : check;
    if (answer.ok) return;
    // Checked before the SDK saw the message, so this is a race (timeout, another channel): show what is still pending.
    this.#deps.logger.warn('a2a: resume decision not applied', { taskId: task.id, reason: answer.message });
    if (live && live.projection.pending.size > 0)
      bus.publish(inputRequired(live.ids, [...live.projection.pending.values()]));
  }

  /** Earlier completed tasks of the same context as conversation turns (oldest first). */
  async #priorTurns(contextId: string, context: ServerCallContext): Promise<PriorMessage[]> {
    const { tasks } = await this.#deps.taskStore.list(
      {
        tenant: context.tenant ?? '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 100,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      },
      context,
    );
    const turns: PriorMessage[] = [];
    for (const t of tasks.slice().reverse()) {
      if (t.status?.state === undefined || !TERMINAL.has(t.status.state)) continue;
      const question = textOf(t.history.find((m: Message) => m.role === Role.ROLE_USER));
      const answer = textOf({
        parts: t.artifacts.find((a) => a.artifactId === ANSWER_ARTIFACT_ID)?.parts ?? [],
      } as unknown as Message);
      if (question) turns.push({ role: 'user', content: question });
      if (answer) turns.push({ role: 'assistant', content: answer });
    }
    return turns.slice(-2 * (this.#deps.maxPriorTurns ?? 20));
  }
}
