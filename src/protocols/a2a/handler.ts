/**
 * The SDK's DefaultRequestHandler with Parley's input checks in front of SendMessage and
 * SendStreamingMessage. Types were checked at the edge (params.ts); these checks are about
 * meaning: file parts only is -32005, no question text or a bad decision is -32602. They run before
 * the SDK touches the task (it appends the message to the task history first thing), so a bad
 * message is answered with a JSON-RPC error and changes nothing: no run started, no history entry,
 * no approval resolved.
 */
import { TaskState, type AgentCard, type SendMessageRequest } from '@a2a-js/sdk';
import type { A2ARequestHandler, DefaultRequestHandler, ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { ContentTypeNotSupportedError, RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARunBridge } from './bridge.ts';
import { modeError } from './options.ts';
import { textOf, unreadableParts } from './parts.ts';
import { readResume } from './resume.ts';

type Params<K extends keyof A2ARequestHandler> = Parameters<A2ARequestHandler[K]>[0];

const BUSY = new Set([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]);

export class ParleyRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: DefaultRequestHandler,
    private readonly taskStore: TaskStore,
    private readonly bridge: A2ARunBridge,
  ) {}

  async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    await this.#check(params, context);
    return this.inner.sendMessage(params, context);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext) {
    await this.#check(params, context);
    yield* this.inner.sendMessageStream(params, context);
  }

  async #check(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const message = params.message;
    if (!message) return; // the SDK answers "request.message is required"
    const unreadable = unreadableParts(message);
    if (unreadable) throw new ContentTypeNotSupportedError(unreadable);
    const badMode = modeError(params);
    if (badMode) throw new RequestMalformedError(badMode);
    if (!message.taskId) {
      if (!textOf(message))
        throw new RequestMalformedError('the message needs a non-empty text part: the question for Parley');
      return;
    }
    const task = await this.taskStore.load(message.taskId, context);
    const state = task?.status?.state;
    if (!task || state === undefined) return; // the SDK answers "task not found"
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const resume = readResume(message, this.bridge.pendingFor(task.id));
      if (!resume.ok) throw new RequestMalformedError(resume.message);
      return;
    }
    if (BUSY.has(state)) {
      throw new UnsupportedOperationError(
        `task ${task.id} is still working; Parley takes a message on an existing task only while it is input-required. ` +
          'To continue the conversation, send a new message with the same contextId (a new task).',
      );
    }
    // Terminal states: the SDK answers that the task cannot be modified.
  }

  getAgentCard(): Promise<AgentCard> {
    return this.inner.getAgentCard();
  }
  getAuthenticatedExtendedAgentCard(params: Params<'getAuthenticatedExtendedAgentCard'>, context: ServerCallContext) {
    return this.inner.getAuthenticatedExtendedAgentCard(params, context);
  }
  getTask(params: Params<'getTask'>, context: ServerCallContext) {
    return this.inner.getTask(params, context);
  }
  listTasks(params: Params<'listTasks'>, context: ServerCallContext) {
    return this.inner.listTasks(params, context);
  }
  cancelTask(params: Params<'cancelTask'>, context: ServerCallContext) {
    return this.inner.cancelTask(params, context);
  }
  async *resubscribe(params: Params<'resubscribe'>, context: ServerCallContext) {
    // Replicas: a task whose run executes on another replica gets a bus here first.
    await this.bridge.followElsewhere(params.id, context);
    yield* this.inner.resubscribe(params, context);
  }
  createTaskPushNotificationConfig(params: Params<'createTaskPushNotificationConfig'>, context: ServerCallContext) {
    return this.inner.createTaskPushNotificationConfig(params, context);
  }
  getTaskPushNotificationConfig(params: Params<'getTaskPushNotificationConfig'>, context: ServerCallContext) {
    return this.inner.getTaskPushNotificationConfig(params, context);
  }
  listTaskPushNotificationConfigs(params: Params<'listTaskPushNotificationConfigs'>, context: ServerCallContext) {
    return this.inner.listTaskPushNotificationConfigs(params, context);
  }
  deleteTaskPushNotificationConfig(params: Params<'deleteTaskPushNotificationConfig'>, context: ServerCallContext) {
    return this.inner.deleteTaskPushNotificationConfig(params, context);
  }
}
