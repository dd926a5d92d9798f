/**
 * A2ARunBridge: one A2A task = one engine run (taskId = runId, contextId = threadId).
 *
 * It is the SDK's AgentExecutor and its event-bus manager at once, because both answer the same
 * question: who owns a task's bus. A "pump" per run follows the engine's events for the whole run,
 * publishes the projected A2A events on the task's bus and persists them itself, so the task
 * stays current in the TaskStore even when no client is connected (after a disconnect, while
 * waiting for an approval that /api/approve resolves). The bus lives as long as the run: a stream
 * that stops at INPUT_REQUIRED, a resume message, SubscribeToTask and CancelTask all attach to it.
 *
 * The pump also records the last run event the task reflects (runSeq). After a restart, recover()
 * follows every unfinished task's run again from there (Engine.recover() has brought the run back:
 * waiting on its approvals again, resumed, or ended failed); a task whose run is gone ends failed.
 */
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  ResultManager,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  ServerCallContext,
  type RequestContext,
  type User,
} from '@a2a-js/sdk/server';
import { LOCAL_CALLER, type PriorMessage, type RunEngine, type RunHandle } from '../../graph/contract.ts';
import type { ApprovalRequest } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { ANSWER_ARTIFACT_ID, inputRequired, projectEvent, type Projection, type TaskIds } from './events.ts';
import { agentMessage, status, textOf, textPart } from './parts.ts';
import { readResume } from './resume.ts';
import { runCitationsOf, runModeOf, runModelsOf } from './options.ts';
import type { ParleyTaskStore, UnfinishedTask } from './task-store.ts';
import type { PushOutbox } from './push-outbox.ts';

interface LiveRun {
  runId: string;
  ids: TaskIds;
  projection: Projection;
  done: Promise<void>;
}

export interface A2ARunBridgeDeps {
  engine: RunEngine;
  taskStore: ParleyTaskStore;
  logger: Logger;
  /** Conversation turns taken from earlier tasks of the same context (default 20). */
  maxPriorTurns?: number;
  /** Push notifications: every stored task event is queued for the task's webhooks (push-outbox.ts). */
  push?: Pick<PushOutbox, 'enqueue'>;
}

/** The SDK user a stored task's owner stands for (the SDK scopes tasks and buses by userName). */
const ownerUser = (owner: string): User => ({ userName: owner, isAuthenticated: true });

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
  /** Replicas: tasks whose run another replica executes, projected here for SubscribeToTask only. */
  readonly #mirrors = new Map<string, { stopped: boolean }>();

  constructor(deps: A2ARunBridgeDeps) {
    this.#deps = deps;
    // Replicas: a run taken over from a dead replica brings its task along (that replica's pump is gone).
    deps.engine.onTakeover?.((runId) => void this.#adopt(runId));
  }

  async #adopt(runId: string): Promise<void> {
    if (this.#live.has(runId)) return;
    // Its subscribers here stay on the same bus; the pump takes over from the mirror.
    const mirror = this.#mirrors.get(runId);
    if (mirror) mirror.stopped = true;
    try {
      const entry = (await this.#deps.taskStore.listUnfinished()).find((t) => t.task.id === runId);
      if (entry && !this.#live.has(runId) && (await this.#follow(entry)))
        this.#deps.logger.info('a2a: following a task taken over from another replica', { taskId: runId });
    } catch (err) {
      this.#deps.logger.error('a2a: following a task taken over failed', { taskId: runId, error: String(err) });
    }
  }

  /** Approvals the task's run is waiting for (what a resume message must answer). */
  pendingFor(taskId: string): ApprovalRequest[] {
    return this.#runOf(taskId)?.pendingApprovals() ?? [];
  }

  /** The run of a task (its id is the task's unless a live task says otherwise). */
  #runOf(taskId: string): RunHandle | undefined {
    return this.#deps.engine.get(this.#live.get(taskId)?.runId ?? taskId);
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
      citations: runCitationsOf(rc.request),
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
    await store.processEvent(AgentEvent.task(task));
    bus.publish(AgentEvent.task(task));
    this.#pump(handle, ids, bus, store, rc.context);
  }

  /**
   * Follows the run to its end. Events up to `appliedSeq` are already in the stored task: they only
   * rebuild the projection (which approvals are pending). After each event that changed the task, the
   * event's seq is recorded, after the task itself: a crash in between re-applies the events after the
   * last recorded seq, which leaves the same task (artifacts are whole, statuses replace, status
   * messages keep their event's id).
   */
  /**
   * Replicas: SubscribeToTask for a task whose run another replica executes. Its events (read from the
   * shared run store) are projected onto a bus here for the subscribers only: the executing replica
   * stores the task and sends its pushes. Called before the SDK looks for the task's bus.
   */
  async followElsewhere(taskId: string, context: ServerCallContext): Promise<void> {
    const elsewhere = () =>
      !this.#live.has(taskId) && !this.#mirrors.has(taskId) && this.#deps.engine.executesHere?.(taskId) === false;
    if (!elsewhere()) return;
    const found = await this.#deps.taskStore.loadWithSeq(taskId, context);
    const state = found?.task.status?.state;
    const handle = this.#deps.engine.get(taskId);
    if (!found || !handle || state === undefined || TERMINAL.has(state) || !elsewhere()) return;
    const ids: TaskIds = { taskId, contextId: found.task.contextId };
    const bus = this.#buses.createOrGetByTaskId(taskId, context);
    const mirror = { stopped: false };
    this.#mirrors.set(taskId, mirror);
    void (async () => {
      const projection: Projection = { pending: new Map() };
      try {
        for await (const event of handle.events()) {
          if (mirror.stopped) return;
          const outs = projectEvent(event, ids, projection);
          if (event.seq > found.runSeq) for (const out of outs) bus.publish(out);
        }
      } catch (err) {
        this.#deps.logger.warn('a2a: following a task of another replica failed', { taskId, error: String(err) });
      } finally {
        this.#mirrors.delete(taskId);
        if (!mirror.stopped) {
          bus.finished();
          this.#buses.cleanupByTaskId(taskId, context);
        }
      }
    })();
  }

  /** Follows a stored unfinished task's run again from the last event it reflects; false when the run is gone (the task ends failed). */
  async #follow({ scope, task, runSeq }: UnfinishedTask): Promise<boolean> {
    const context = new ServerCallContext({ tenant: scope.tenant, user: ownerUser(scope.owner) });
    const ids: TaskIds = { taskId: task.id, contextId: task.contextId };
    const store = new ResultManager(this.#deps.taskStore, context);
    const handle = this.#deps.engine.get(task.id);
    if (handle) {
      this.#pump(handle, ids, this.#buses.createOrGetByTaskId(task.id, context), store, context, runSeq ?? 0);
      return true;
    }
    const reason = 'the run of this task did not survive a restart of Parley (it is no longer in the run store)';
    const lost = AgentEvent.statusUpdate({
      ...ids,
      status: status(TaskState.TASK_STATE_FAILED, agentMessage(ids.taskId, ids.contextId, [textPart(reason)])),
      metadata: undefined,
    });
    // One task that cannot be saved does not keep the others from being followed.
    await store.processEvent(lost).then(
      () => this.#deps.logger.warn('a2a: a task whose run is gone ended failed', { taskId: task.id }),
      (err: unknown) =>
        this.#deps.logger.error('a2a: ending a task whose run is gone failed', {
          taskId: task.id,
          error: (err as Error).message,
        }),
    );
    return false;
  }

  #pump(
    handle: RunHandle,
    ids: TaskIds,
    bus: ExecutionEventBus,
    store: ResultManager,
    context: ServerCallContext,
    appliedSeq = 0,
  ): void {
    const projection: Projection = { pending: new Map() };
    const live: LiveRun = { runId: handle.id, ids, projection, done: Promise.resolve() };
    this.#live.set(ids.taskId, live);
    live.done = (async () => {
      try {
        for await (const event of handle.events()) {
          const outs = projectEvent(event, ids, projection);
          if (event.seq <= appliedSeq || outs.length === 0) continue;
          // The run moved to another replica (this one lost its lease): that one stores the task and sends
          // its pushes from now on; the subscribers here read on.
          if (this.#deps.engine.executesHere?.(handle.id) === false) {
            for (const out of outs) bus.publish(out);
            continue;
          }
          // Stored first: a client that sees an event (and may stop at a final one) finds it in GetTask.
          for (const out of outs) {
            await store.processEvent(out);
            bus.publish(out);
            await this.#push(out, context, store);
          }
          // Not awaited: it commits with the next write (one commit per event instead of two). A seq
          // that did not reach the store only means re-applying events, which leaves the same task.
          void this.#deps.taskStore
            .setRunSeq(ids.taskId, context, event.seq)
            .catch((err: unknown) =>
              this.#deps.logger.warn('a2a: recording the run seq failed', { error: (err as Error).message }),
            );
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
        // Already failing: the event is still published and pushed below; a store error here has no one else to tell.
        await store.processEvent(failed).catch(() => undefined);
        bus.publish(failed);
        await this.#push(failed, context, store);
      } finally {
        this.#live.delete(ids.taskId);
        bus.finished();
        this.#buses.cleanupByTaskId(ids.taskId, context);
      }
    })();
  }

  /**
   * At start, before serving: follows again the run of every task the last process left unfinished,
   * from the last event the task reflects. A task whose run the engine no longer has (forgotten, or the
   * run store was reset) ends failed with that reason, never task-not-found.
   */
  async recover(): Promise<{ followed: number; failed: number }> {
    let followed = 0;
    let failed = 0;
    for (const entry of await this.#deps.taskStore.listUnfinished()) {
      // Replicas: a task whose run executes on another replica is that replica's to follow.
      if (this.#deps.engine.executesHere?.(entry.task.id) === false) continue;
      if (await this.#follow(entry)) followed++;
      else failed++;
    }
    return { followed, failed };
  }

  async #resume(rc: RequestContext, bus: ExecutionEventBus, task: Task): Promise<void> {
    const live = this.#live.get(task.id);
    // First event must be the task; it goes back to WORKING since the decision is applied next.
    bus.publish(AgentEvent.task({ ...task, status: status(TaskState.TASK_STATE_WORKING) }));
    const run = this.#runOf(task.id);
    const check = readResume(rc.userMessage, run?.pendingApprovals() ?? []);
    const answer = check.ok && run ? await run.resolve(check.requestId, check.decision, 'a2a') : check;
    if (answer.ok) return;
    // Checked before the SDK saw the message, so this is a race (timeout, another channel): show what is still pending.
    this.#deps.logger.warn('a2a: resume decision not applied', { taskId: task.id, reason: answer.message });
    if (live && live.projection.pending.size > 0)
      bus.publish(inputRequired(live.ids, [...live.projection.pending.values()]));
  }

  /** Queues the stored event for the task's webhooks; a failure there never stops following the run. */
  async #push(event: AgentExecutionEvent, context: ServerCallContext, store: ResultManager): Promise<void> {
    await this.#deps.push?.enqueue(event, context, store.getCurrentTask()).catch((err: unknown) => {
      this.#deps.logger.error('a2a push: queueing a notification failed', { error: (err as Error).message });
    });
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
