/**
 * A2aPeerHost: a remote A2A agent as a specialist, through the @a2a-js/sdk client. Streams when
 * the peer's card says it can (progress text goes to onProgress), cancels the remote task on
 * abort, and turns the peer's input-required into an elicitation request of ours; the human's
 * answer goes back as a message on the same task. run() never throws.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ApprovalPort } from '../hitl/types.ts';
import { silentLogger, type Logger } from '../log.ts';
import { traceCarrier } from './trace-context.ts';
import type { PeerAgentHost } from './types.ts';

export interface A2aPeerHostOptions {
  /** Where input-required questions go when the call context brings no port of its own. */
  approvals?: Pick<ApprovalPort, 'request'>;
  /** Maps a specialist's peer name to the peer's base URL; by default the peer string is the URL. */
  resolvePeer?: (peer: string) => string | undefined;
  /** How many times one run may answer input-required before giving up. */
  maxInputRounds?: number;
  /** For auth headers or tests. */
  fetchImpl?: typeof fetch;
  logger?: Logger;
}

type PeerResult = Awaited<ReturnType<PeerAgentHost['run']>>;
type RunCtx = Parameters<PeerAgentHost['run']>[2];
type Part = Message['parts'][number];

/** What we know about the remote task after one exchange. */
interface Exchange {
  taskId?: string;
  contextId?: string;
  state?: TaskState;
  /** Text of the latest status message (progress, question or failure reason). */
  statusText: string;
  /** Artifacts by id, their text accumulated across append chunks. */
  artifacts: Map<string, string>;
  /** A direct message reply (no task). */
  reply?: string;
  sources: string[];
}

const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string', description: 'Your reply to the agent' } },
  required: ['answer'],
} as const;

export class A2aPeerHost implements PeerAgentHost {
  readonly #clients = new Map<string, Promise<{ client: Client; streaming: boolean }>>();
  readonly #logger: Logger;

  constructor(private readonly options: A2aPeerHostOptions = {}) {
    this.#logger = options.logger ?? silentLogger;
  }

  async run(peer: string, objective: string, ctx: RunCtx): Promise<PeerResult> {
    const url = this.options.resolvePeer?.(peer) ?? peer;
    let connected: { client: Client; streaming: boolean };
    try {
      connected = await this.#client(url);
    } catch (err) {
      return { ok: false, output: '', error: `cannot reach A2A peer ${peer}: ${(err as Error).message}`, sources: [] };
    }
    const { client, streaming } = connected;
    const exchange: Exchange = { statusText: '', artifacts: new Map(), sources: [] };
    let message = userMessage(objective, {}, ctx);
    const rounds = this.options.maxInputRounds ?? 3;
    const options = { signal: ctx.signal, serviceParameters: traceCarrier() };

    try {
      for (let round = 0; ; round++) {
        if (streaming) {
          for await (const event of client.sendMessageStream(request(message), options)) {
            absorb(exchange, event.payload, ctx.onProgress);
          }
        } else {
          const result = await client.sendMessage(request(message), options);
          absorb(
            exchange,
            isTask(result) ? { $case: 'task', value: result } : { $case: 'message', value: result },
            ctx.onProgress,
          );
          await this.#waitWhileWorking(client, exchange, ctx);
        }
        if (exchange.state !== TaskState.TASK_STATE_INPUT_REQUIRED) break;
        if (round >= rounds)
          return await this.#giveUp(client, exchange, `the peer asked for input more than ${rounds} times`);
        const answer = await this.#askHuman(peer, exchange, ctx);
        if (answer === undefined)
          return await this.#giveUp(client, exchange, 'the peer asked for input and no answer was given');
        message = userMessage(answer, { taskId: exchange.taskId, contextId: exchange.contextId }, ctx);
      }
    } catch (err) {
      if (ctx.signal.aborted) {
        await this.#cancelRemote(client, exchange);
        return { ok: false, output: outputOf(exchange), error: 'cancelled', sources: exchange.sources };
      }
      return {
        ok: false,
        output: outputOf(exchange),
        error: `A2A peer ${peer} failed: ${(err as Error).message}`,
        sources: exchange.sources,
      };
    }
    return finish(peer, exchange);
  }

  #client(url: string): Promise<{ client: Client; streaming: boolean }> {
    let pending = this.#clients.get(url);
    if (!pending) {
      pending = (async () => {
        // The A2A client SDK loads with the first call to a peer: most servers have none.
        const { ClientFactory, DefaultAgentCardResolver } = await import('@a2a-js/sdk/client');
        const card = await new DefaultAgentCardResolver(
          this.options.fetchImpl ? { fetchImpl: this.options.fetchImpl } : undefined,
        ).resolve(url);
        const client = await new ClientFactory().createFromAgentCard(card);
        return { client, streaming: card.capabilities?.streaming === true };
      })();
      // A failed discovery is not cached: the peer may be up next time.
      pending.catch(() => this.#clients.delete(url));
      this.#clients.set(url, pending);
    }
    return pending;
  }

  /** A non-streaming peer may answer before the task is done; poll until it settles. */
  async #waitWhileWorking(client: Client, exchange: Exchange, ctx: RunCtx): Promise<void> {
    while (
      exchange.taskId &&
      (exchange.state === TaskState.TASK_STATE_WORKING || exchange.state === TaskState.TASK_STATE_SUBMITTED)
    ) {
      await new Promise((r) => setTimeout(r, 250));
      ctx.signal.throwIfAborted();
      const task = await client.getTask({ tenant: '', id: exchange.taskId }, { signal: ctx.signal });
      absorb(exchange, { $case: 'task', value: task }, ctx.onProgress);
    }
  }

  async #askHuman(peer: string, exchange: Exchange, ctx: RunCtx): Promise<string | undefined> {
    const port = ctx.approvals ?? this.options.approvals;
    if (!port) return undefined;
    const { outcome } = port.request(
      {
        kind: 'elicitation',
        runId: ctx.runId,
        stepId: ctx.stepId,
        source: `a2a:${peer}`,
        message: exchange.statusText || 'The agent needs more input to continue.',
        requestedSchema: { ...ANSWER_SCHEMA },
      },
      { signal: ctx.signal },
    );
    const { decision } = await outcome;
    if (decision.kind !== 'elicitation' || decision.action !== 'accept') return undefined;
    const answer = decision.content?.answer;
    return typeof answer === 'string' ? answer : JSON.stringify(decision.content ?? {});
  }

  async #giveUp(client: Client, exchange: Exchange, reason: string): Promise<PeerResult> {
    await this.#cancelRemote(client, exchange);
    return { ok: false, output: outputOf(exchange), error: reason, sources: exchange.sources };
  }

  async #cancelRemote(client: Client, exchange: Exchange): Promise<void> {
    if (!exchange.taskId || isFinal(exchange.state)) return;
    try {
      await client.cancelTask(
        { tenant: '', id: exchange.taskId, metadata: undefined },
        { signal: AbortSignal.timeout(5000) },
      );
    } catch (err) {
      this.#logger.warn('A2A CancelTask failed', { taskId: exchange.taskId, error: (err as Error).message });
    }
  }
}

function userMessage(text: string, on: { taskId?: string; contextId?: string }, ctx: RunCtx): Message {
  return {
    messageId: randomUUID(),
    contextId: on.contextId ?? '',
    taskId: on.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: { parleyRunId: ctx.runId, parleyStepId: ctx.stepId },
    extensions: [],
    referenceTaskIds: [],
  };
}

const request = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

const isTask = (r: Message | Task): r is Task => 'status' in r && 'artifacts' in r;

type StreamEvent = Client['sendMessageStream'] extends (...args: never[]) => AsyncGenerator<infer E> ? E : never;
type Payload = StreamEvent['payload'];

function absorb(exchange: Exchange, payload: Payload, onProgress?: (text: string) => void): void {
  if (!payload) return;
  switch (payload.$case) {
    case 'message':
      exchange.reply = partsText(payload.value.parts);
      return;
    case 'task': {
      const task = payload.value;
      exchange.taskId = task.id;
      exchange.contextId = task.contextId;
      for (const a of task.artifacts) exchange.artifacts.set(a.artifactId, partsText(a.parts));
      absorbStatus(exchange, task.status, onProgress);
      return;
    }
    case 'statusUpdate':
      exchange.taskId = payload.value.taskId;
      exchange.contextId = payload.value.contextId;
      absorbStatus(exchange, payload.value.status, onProgress);
      return;
    case 'artifactUpdate': {
      const artifact = payload.value.artifact;
      if (!artifact) return;
      const text = partsText(artifact.parts);
      const before = payload.value.append ? (exchange.artifacts.get(artifact.artifactId) ?? '') : '';
      exchange.artifacts.set(artifact.artifactId, before + text);
      for (const p of artifact.parts) if (p.content?.$case === 'url') exchange.sources.push(p.content.value);
      return;
    }
  }
}

function absorbStatus(exchange: Exchange, status: Task['status'], onProgress?: (text: string) => void): void {
  if (!status) return;
  exchange.state = status.state;
  const text = status.message ? partsText(status.message.parts) : '';
  if (text && text !== exchange.statusText) {
    exchange.statusText = text;
    if (status.state === TaskState.TASK_STATE_WORKING || status.state === TaskState.TASK_STATE_SUBMITTED)
      onProgress?.(text);
  }
}

function partsText(parts: Part[]): string {
  return parts
    .map((p) => {
      const c = p.content;
      if (!c) return '';
      if (c.$case === 'text') return c.value;
      if (c.$case === 'data') return JSON.stringify(c.value);
      if (c.$case === 'url') return `[file: ${c.value}]`;
      return `[file: ${p.filename || 'unnamed'}, ${c.value.length} bytes]`;
    })
    .filter(Boolean)
    .join('\n');
}

const isFinal = (s: TaskState | undefined) =>
  s === TaskState.TASK_STATE_COMPLETED ||
  s === TaskState.TASK_STATE_FAILED ||
  s === TaskState.TASK_STATE_CANCELED ||
  s === TaskState.TASK_STATE_REJECTED;

function outputOf(exchange: Exchange): string {
  if (exchange.artifacts.size) return [...exchange.artifacts.values()].join('\n\n');
  return exchange.reply ?? exchange.statusText;
}

function finish(peer: string, exchange: Exchange): PeerResult {
  const sources = exchange.taskId ? [...exchange.sources, `a2a:${peer}#task=${exchange.taskId}`] : exchange.sources;
  if (exchange.reply !== undefined && exchange.state === undefined)
    return { ok: true, output: exchange.reply, sources };
  switch (exchange.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { ok: true, output: outputOf(exchange), sources };
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return {
        ok: false,
        output: outputOf(exchange),
        error: `A2A peer ${peer} requires authentication: ${exchange.statusText}`,
        sources,
      };
    default: {
      const state =
        exchange.state === undefined
          ? 'no task state'
          : TaskState[exchange.state].replace('TASK_STATE_', '').toLowerCase();
      return {
        ok: false,
        output: outputOf(exchange),
        error: `A2A peer ${peer} ended ${state}${exchange.statusText ? `: ${exchange.statusText}` : ''}`,
        sources,
      };
    }
  }
}
