/**
 * One ACP prompt turn = one engine run. Starts the run, turns its GraphEvents into `session/update`
 * notifications (plan, agent_message_chunk, tool_call / tool_call_update, agent_thought_chunk for progress),
 * sends approvals to the client as a sideband task (the event stream keeps flowing while the user decides),
 * and ends with the stop reason ACP prescribes for how the run ended.
 */
import {
  methods,
  RequestError,
  type AgentContext,
  type ClientCapabilities,
  type PromptResponse,
  type SessionUpdate,
  type ToolCallContent,
} from '@agentclientprotocol/sdk';
import type { Caller, GraphEvent, RunEngine, RunHandle, RunMode, RunResult } from '../../graph/contract.ts';
import type { PendingToolCall } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { askClient, toolKind, toolTitle } from './permission.ts';
import { PlanView } from './plan.ts';

/** What a tool call message may say besides its id, title and kind (status, content, raw input, _meta). */
type ToolCallFields = Omit<
  Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>,
  'sessionUpdate' | 'toolCallId' | 'title' | 'kind'
>;
import type { PromptInput } from './prompt.ts';
import { remember, type AcpSession } from './session.ts';

export interface TurnDeps {
  engine: RunEngine;
  logger: Logger;
  session: AcpSession;
  client: AgentContext;
  clientCapabilities: ClientCapabilities | undefined;
  caller?: Caller;
}

export async function runTurn(
  deps: TurnDeps,
  input: PromptInput,
  requestSignal: AbortSignal,
  mode: RunMode = deps.session.mode,
): Promise<PromptResponse> {
  const { session, engine, logger } = deps;
  let handle;
  try {
    handle = engine.start(
      {
        threadId: session.id,
        query: input.query,
        ...(input.parts.length ? { parts: input.parts } : {}),
        messages: [...session.history],
        mode,
        ...(session.models ? { models: session.models } : {}),
        ...(session.reasoning !== undefined ? { reasoning: session.reasoning } : {}),
        ...(session.citations ? { citations: session.citations } : {}),
        protocol: 'acp',
        ...(deps.caller ? { caller: deps.caller } : {}),
      },
      session.tools ? { tools: session.tools } : {},
    );
  } catch (err) {
    logger.error('acp: the engine refused to start a run', { sessionId: session.id, error: String(err) });
    throw RequestError.internalError(undefined, 'the run could not be started');
  }
  const active = { runId: handle.id, cancelRequested: false };
  session.active = active;
  const stopOnAbort = () => {
    active.cancelRequested = true;
    engine.cancel(handle.id, 'the ACP prompt request was cancelled');
  };
  requestSignal.addEventListener('abort', stopOnAbort, { once: true });

  const view = new TurnView(deps, handle);
  const turn = { showTerminal: view.showTerminal.bind(view) };
  session.turn = turn;
  try {
    for await (const event of handle.events()) await view.apply(event);
  } catch (err) {
    // The client went away or a notification could not be sent: the run has no one to report to.
    engine.cancel(handle.id, 'the ACP connection failed');
    if (active.cancelRequested) return { stopReason: 'cancelled' };
    logger.warn('acp: prompt turn aborted', { runId: handle.id, error: String(err) });
    throw RequestError.internalError({ runId: handle.id }, 'the prompt turn could not be reported to the client');
  } finally {
    requestSignal.removeEventListener('abort', stopOnAbort);
    view.close();
    if (session.active === active) delete session.active;
    if (session.turn === turn) delete session.turn;
  }

  const result = await handle.result;
  // A tool call the run never finished (it waited for permission, or ran, when the turn was cancelled) gets its last word.
  await view.endOpenToolCalls(result.status === 'cancelled' || active.cancelRequested ? 'cancelled' : result.status);
  return finish(deps, view, result, input.query, active.cancelRequested);
}

async function finish(
  deps: TurnDeps,
  view: TurnView,
  result: RunResult,
  query: string,
  cancelRequested: boolean,
): Promise<PromptResponse> {
  const meta = {
    parley: { runId: result.runId, status: result.status, usage: result.usage, durationMs: result.durationMs },
  };
  // ACP: after session/cancel the prompt MUST end with "cancelled", whatever the run did meanwhile.
  if (cancelRequested || result.status === 'cancelled') return { stopReason: 'cancelled', _meta: meta };
  switch (result.status) {
    case 'completed':
      if (!view.answerStreamed && result.answer)
        await view.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: result.answer } });
      remember(deps.session, query, result.answer);
      // Provenance as data (docs/protocols/acp.md): the answer names no step; its sources and references come here.
      return {
        stopReason: 'end_turn',
        _meta: {
          parley: {
            ...meta.parley,
            ...(result.sources ? { sources: result.sources } : {}),
            ...(result.references ? { references: result.references } : {}),
            ...(result.failedSteps ? { failedSteps: result.failedSteps } : {}),
          },
        },
      };
    case 'blocked':
      // A budget or rate limit stopped the run: the agent declines to go on, and says why.
      await view.send({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `Parley stopped: ${result.error ?? 'a usage limit was reached'}` },
      });
      return {
        stopReason: 'refusal',
        _meta: { parley: { ...meta.parley, error: result.error, retryAfterMs: result.retryAfterMs } },
      };
    default:
      throw RequestError.internalError(
        { runId: result.runId, error: result.error },
        `the run failed: ${result.error ?? 'unknown error'}`,
      );
  }
}

/** The client's view of one run: which tool calls it has seen, the plan, whether the answer streamed. */
class TurnView {
  readonly #deps: TurnDeps;
  readonly #run: RunHandle;
  readonly #runId: string;
  readonly #plan = new PlanView();
  /** Engine toolCallId → the ACP toolCallId the client knows it by. */
  readonly #announced = new Map<string, string>();
  /** Engine toolCallIds that reached a final status. */
  readonly #ended = new Set<string>();
  /** Content the client keeps on a tool call (its diff, its terminal) beside the result text. */
  readonly #content = new Map<string, ToolCallContent[]>();
  /** Approval request id → aborts the client question when the request settles elsewhere. */
  readonly #asking = new Map<string, AbortController>();
  readonly #turn = new AbortController();
  answerStreamed = false;

  constructor(deps: TurnDeps, run: RunHandle) {
    this.#deps = deps;
    this.#run = run;
    this.#runId = run.id;
  }

  send(update: SessionUpdate): Promise<void> {
    return this.#deps.client.notify(methods.client.session.update, { sessionId: this.#deps.session.id, update });
  }

  #thought(text: string): Promise<void> {
    return this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `${text}\n` } });
  }

  #acpId(toolCallId: string): string {
    return `${this.#runId}/${toolCallId}`;
  }

  /**
   * A tool call's state for the client: an update of the call it knows, or, for a call it never saw
   * start (e.g. one refused before it ran), the call announced now with its title and `firstSeen`.
   */
  #toolCall(
    event: { toolCallId: string; tool: string },
    fields: ToolCallFields,
    firstSeen: Pick<ToolCallFields, 'rawInput'> = {},
  ): Promise<void> {
    const known = this.#announced.get(event.toolCallId);
    if (known) return this.send({ sessionUpdate: 'tool_call_update', toolCallId: known, ...fields });
    const toolCallId = this.#acpId(event.toolCallId);
    this.#announced.set(event.toolCallId, toolCallId);
    return this.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: toolTitle(event.tool),
      kind: 'other',
      ...fields,
      ...firstSeen,
    });
  }

  async apply(event: GraphEvent): Promise<void> {
    switch (event.type) {
      case 'route.decided':
        return this.#thought(`Route: ${event.stage} (${event.reason})`);
      case 'plan.ready':
        return this.send({ sessionUpdate: 'plan', entries: this.#plan.setPlan(event.plan) });
      case 'step.spawned':
        return this.send({ sessionUpdate: 'plan', entries: this.#plan.spawned(event) });
      case 'message.sent':
        return this.#thought(`${event.from} → ${event.to === '*' ? 'every agent' : event.to}: ${event.preview}`);
      case 'context.written':
        return this.#thought(`${event.stepId} wrote team memory "${event.key}": ${event.preview}`);
      case 'step.started': {
        const entries = this.#plan.started(event.stepId);
        return entries ? this.send({ sessionUpdate: 'plan', entries }) : undefined;
      }
      case 'step.finished': {
        const entries = this.#plan.finished(event.stepId, event.status);
        return entries ? this.send({ sessionUpdate: 'plan', entries }) : undefined;
      }
      case 'tool.started':
        return this.#toolCall(event, { status: 'in_progress' }, { rawInput: event.args });
      case 'tool.finished': {
        const text =
          event.status === 'ok' ? event.result : (event.error ?? (event.status === 'denied' ? 'Denied.' : 'Failed.'));
        this.#ended.add(event.toolCallId);
        const kept = this.#content.get(event.toolCallId) ?? [];
        const content: ToolCallContent[] = [
          ...(event.status === 'ok' ? kept : kept.filter((c) => c.type === 'terminal')),
          ...(text ? [{ type: 'content' as const, content: { type: 'text' as const, text } }] : []),
        ];
        const outcome = {
          status: event.status === 'ok' ? ('completed' as const) : ('failed' as const),
          ...(content.length ? { content } : {}),
          _meta: { parley: { status: event.status, durationMs: event.durationMs } },
        };
        return this.#toolCall(event, outcome);
      }
      case 'approval.requested':
        return this.#ask(event.request);
      case 'approval.resolved': {
        this.#asking.get(event.outcome.requestId)?.abort();
        const { decision } = event.outcome;
        if (decision.kind !== 'tool') return;
        // Accepted calls run now; denied ones end with their tool.finished (status denied).
        for (const [toolCallId, d] of Object.entries(decision.decisions)) {
          const known = this.#announced.get(toolCallId);
          if (known && d.type !== 'deny')
            await this.send({ sessionUpdate: 'tool_call_update', toolCallId: known, status: 'in_progress' });
        }
        return;
      }
      case 'verify.result':
        return this.#thought(`Verification round ${event.round}: score ${event.score.toFixed(2)}, next: ${event.next}`);
      case 'council.stage':
        return this.#thought(`Council ${event.stage}: ${event.detail}`);
      case 'model.thought':
        // The model's own reasoning, as it streams: no line of ours around it.
        return this.send({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: event.text },
          _meta: { parley: { role: event.role } },
        });
      case 'answer.delta':
        if (!event.text) return;
        this.answerStreamed = true;
        return this.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: event.text },
          messageId: this.#runId,
        });
      default:
        return;
    }
  }

  /** Sideband: the question runs on its own so later events (other steps) keep reaching the client. */
  #ask(request: Parameters<typeof askClient>[0]): void {
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, this.#turn.signal]);
    this.#asking.set(request.id, controller);
    const deps = this.#deps;
    askClient(
      request,
      {
        session: deps.session,
        client: deps.client,
        run: this.#run,
        clientCapabilities: deps.clientCapabilities,
        logger: deps.logger,
        announce: (call) => this.#announce(call),
        keep: (toolCallId, content) => this.keep(toolCallId, content),
        note: (text) => this.#thought(text),
      },
      signal,
    )
      .catch((err: unknown) => {
        // Withdrawn (settled elsewhere, turn over) is normal; anything else leaves the request to its timeout.
        if (!signal.aborted)
          deps.logger.warn('acp: permission request failed', { requestId: request.id, error: String(err) });
      })
      .finally(() => this.#asking.delete(request.id));
  }

  async #announce(call: PendingToolCall): Promise<string> {
    const known = this.#announced.get(call.toolCallId);
    if (known) {
      // The engine reports a call as started before it asks about it: it is waiting, not running.
      await this.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: known,
        status: 'pending',
        kind: toolKind(call.annotations),
      });
      return known;
    }
    const toolCallId = this.#acpId(call.toolCallId);
    this.#announced.set(call.toolCallId, toolCallId);
    await this.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: toolTitle(call.tool),
      kind: toolKind(call.annotations),
      status: 'pending',
      rawInput: call.args,
    });
    return toolCallId;
  }

  /** A command's terminal, shown on its tool call (announced now if the client has not seen the call yet). */
  async showTerminal(call: { toolCallId: string; tool: string }, terminalId: string): Promise<void> {
    const content: ToolCallContent[] = [{ type: 'terminal', terminalId }];
    this.#content.set(call.toolCallId, content);
    await this.#toolCall(call, { status: 'in_progress', content });
  }

  /** Keeps what a permission request showed (a diff) on the tool call. */
  keep(toolCallId: string, content: ToolCallContent[]): void {
    if (content.length) this.#content.set(toolCallId, content);
  }

  /** Every tool call the client saw that never finished is told how it ended (ACP has no "cancelled" status: failed). */
  async endOpenToolCalls(how: string): Promise<void> {
    for (const [engineId, toolCallId] of this.#announced) {
      if (this.#ended.has(engineId)) continue;
      this.#ended.add(engineId);
      await this.send({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: `Not run: the turn was ${how}.` } }],
        _meta: { parley: { status: how } },
        // The client went away: the failed status is for its UI only.
      }).catch(() => undefined);
    }
  }

  /** The turn is over: withdraw questions still open on the client. */
  close(): void {
    this.#turn.abort();
  }
}
