/**
 * McpToolHost: the ToolHost over the MCP servers of mcp_config.json. Tool ids are `server/tool`.
 * Per server: one lazily (or eagerly) connected client, a circuit breaker, call deadlines that
 * pause while a human answers an elicitation, and reconnection after the transport closes.
 * callTool never throws: every failure comes back as { ok: false, error } for the model to read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, type ElicitResult, type Tool } from '@modelcontextprotocol/client';
import type { Config } from '../config.ts';
import type { ApprovalPort } from '../hitl/types.ts';
import { silentLogger, type Logger } from '../log.ts';
import { CircuitBreaker } from './breaker.ts';
import { PausableDeadline } from './deadline.ts';
import { McpConnection, type ElicitationAsk } from './mcp-connection.ts';
import { resultToText, truncateForModel } from './result-text.ts';
import { configRequiresApproval, configToolTimeoutMs, isToolEnabled, type McpServerConfig } from './mcp-config.ts';
import { normalizeServers, type McpServers } from './server-spec.ts';
import type { ToolCallContext, ToolCallResult, ToolDescriptor, ToolHost } from './types.ts';

export interface McpToolHostOptions {
  /** loadMcpConfig(path).servers, or a raw `mcpServers` map (validated by the same loader). */
  servers: McpServers;
  settings: Config['tools'];
  /** Where elicitations go when the call's context brings no approval port of its own. */
  approvals?: Pick<ApprovalPort, 'request'>;
  logger?: Logger;
  clientInfo?: { name: string; version: string };
}

export interface McpServerStatus {
  server: string;
  connected: boolean;
  breaker: CircuitBreaker['state'];
  lastError?: string;
  tools: number;
}

interface InFlightCall {
  ctx: ToolCallContext;
  signal: AbortSignal;
  deadline: PausableDeadline;
}

interface ServerEntry {
  conn: McpConnection;
  breaker: CircuitBreaker;
  inFlight: Set<InFlightCall>;
  /** Last good listing, served while the server is unreachable. */
  descriptors: ToolDescriptor[] | undefined;
}

class CallTimeout extends Error {}

export class McpToolHost implements ToolHost {
  readonly #servers = new Map<string, ServerEntry>();
  readonly #callScope = new AsyncLocalStorage<InFlightCall>();
  readonly #logger: Logger;

  constructor(private readonly options: McpToolHostOptions) {
    this.#logger = options.logger ?? silentLogger;
    for (const spec of normalizeServers(options.servers)) {
      if (spec.disabled) continue;
      const name = spec.name;
      const conn = new McpConnection(name, spec, {
        clientInfo: options.clientInfo ?? { name: 'parley', version: '0.1.0' },
        logger: this.#logger,
        connectTimeoutMs: options.settings.timeoutMs,
        detached: (fn) => this.#callScope.exit(fn),
        onElicitation: (ask, signal) => this.#elicit(name, ask, signal),
      });
      const breaker = new CircuitBreaker({
        threshold: options.settings.breakerThreshold,
        cooldownMs: options.settings.breakerCooldownMs,
      });
      this.#servers.set(name, { conn, breaker, inFlight: new Set(), descriptors: undefined });
    }
  }

  /** With `connect: eager`, connects every server and lists its tools now; failures are logged, not thrown. */
  async start(): Promise<void> {
    if (this.options.settings.connect !== 'eager') return;
    await Promise.all([...this.#servers.keys()].map((name) => this.#listServer(name)));
  }

  async listTools(): Promise<ToolDescriptor[]> {
    const lists = await Promise.all([...this.#servers.keys()].map((name) => this.#listServer(name)));
    return lists.flat();
  }

  async getTool(id: string): Promise<ToolDescriptor | undefined> {
    const { server } = splitId(id);
    if (!this.#servers.has(server)) return undefined;
    return (await this.#listServer(server)).find((t) => t.id === id);
  }

  status(): McpServerStatus[] {
    return [...this.#servers.entries()].map(([server, e]) => ({
      server,
      connected: e.conn.connected,
      breaker: e.breaker.state,
      ...(e.breaker.lastError ? { lastError: e.breaker.lastError } : {}),
      tools: e.descriptors?.length ?? 0,
    }));
  }

  async callTool(id: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallResult> {
    const { server, tool } = splitId(id);
    const entry = this.#servers.get(server);
    const fail = (error: string, full: unknown = null): ToolCallResult => ({ ok: false, text: error, full, error });
    if (!entry) return fail(`unknown tool ${id}: no enabled MCP server named '${server}'`);
    if (!isToolEnabled(entry.conn.spec, tool)) return fail(`tool ${id} is disabled in mcp_config.json`);
    if (ctx.signal.aborted) return fail(`tool call ${id} cancelled before it started`);
    if (!entry.breaker.tryAcquire()) {
      const retryIn = Math.max(0, Math.ceil((entry.breaker.retryAt - Date.now()) / 1000));
      return fail(
        `MCP server '${server}' is unavailable (circuit breaker open after repeated failures; last error: ${entry.breaker.lastError}). ` +
          `Not called; the server will be tried again in about ${retryIn}s.`,
      );
    }

    const timeoutMs = configToolTimeoutMs(entry.conn.spec, tool) ?? this.options.settings.timeoutMs;
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onCallerAbort, { once: true });
    const call: InFlightCall = {
      ctx,
      signal: controller.signal,
      deadline: new PausableDeadline(timeoutMs, () => controller.abort(new CallTimeout())),
    };
    entry.inFlight.add(call);
    try {
      const result = await this.#callScope.run(call, () => entry.conn.callTool(tool, args, controller.signal));
      entry.breaker.success();
      const text = resultToText(result);
      if (result.isError)
        return {
          ok: false,
          text: truncateForModel(text, this.options.settings.resultMaxChars),
          full: result,
          error: text,
        };
      return { ok: true, text: truncateForModel(text, this.options.settings.resultMaxChars), full: result };
    } catch (err) {
      if (controller.signal.reason instanceof CallTimeout) {
        const message = `tool ${id} timed out after ${timeoutMs} ms`;
        entry.breaker.failure(message);
        return fail(message);
      }
      if (ctx.signal.aborted) {
        entry.breaker.release();
        return fail(`tool call ${id} cancelled`);
      }
      const message = (err as Error).message;
      // The server answered with a JSON-RPC error: it is alive, the call was wrong.
      if (err instanceof ProtocolError) {
        entry.breaker.success();
        return fail(`tool ${id} failed: ${message}`);
      }
      entry.breaker.failure(message);
      this.#logger.warn('MCP tool call failed', { tool: id, error: message });
      return fail(`MCP server '${server}' failed during ${id}: ${message}`);
    } finally {
      call.deadline.clear();
      ctx.signal.removeEventListener('abort', onCallerAbort);
      entry.inFlight.delete(call);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((e) => e.conn.close()));
  }

  async #listServer(name: string): Promise<ToolDescriptor[]> {
    const entry = this.#servers.get(name)!;
    if (!entry.breaker.tryAcquire()) return entry.descriptors ?? [];
    try {
      const tools = await entry.conn.listTools();
      entry.breaker.success();
      entry.descriptors = tools
        .filter((t) => isToolEnabled(entry.conn.spec, t.name))
        .map((t) => describe(name, entry.conn.spec, t));
    } catch (err) {
      entry.breaker.failure((err as Error).message);
      this.#logger.warn('cannot list tools of MCP server', { server: name, error: (err as Error).message });
    }
    return entry.descriptors ?? [];
  }

  /**
   * An upstream server asked for user input (elicitation/create). It belongs to the tool call in
   * whose async scope the request arrived (Streamable HTTP streams it on the call's response). On
   * transports without that link (stdio) it is the server's only call in flight, or failing that
   * its oldest one.
   */
  async #elicit(server: string, ask: ElicitationAsk, serverSignal: AbortSignal): Promise<ElicitResult> {
    const entry = this.#servers.get(server)!;
    const call = this.#callScope.getStore() ?? [...entry.inFlight][0];
    const port = call?.ctx.approvals ?? this.options.approvals;
    if (!call || !port) {
      this.#logger.warn('elicitation without a tool call in progress or an approval port; cancelled', { server });
      return { action: 'cancel' };
    }
    call.deadline.pause();
    try {
      const { outcome } = port.request(
        {
          kind: 'elicitation',
          runId: call.ctx.runId,
          stepId: call.ctx.stepId,
          source: `mcp:${server}`,
          message: ask.message,
          ...(ask.requestedSchema ? { requestedSchema: ask.requestedSchema } : {}),
        },
        { signal: AbortSignal.any([serverSignal, call.signal]) },
      );
      const { decision } = await outcome;
      if (decision.kind !== 'elicitation') return { action: 'cancel' };
      return decision.action === 'accept'
        ? { action: 'accept', content: (decision.content ?? {}) as ElicitResult['content'] }
        : { action: decision.action };
    } finally {
      call.deadline.resume();
    }
  }
}

function splitId(id: string): { server: string; tool: string } {
  const slash = id.indexOf('/');
  return slash < 0 ? { server: id, tool: '' } : { server: id.slice(0, slash), tool: id.slice(slash + 1) };
}

function describe(server: string, spec: McpServerConfig, tool: Tool): ToolDescriptor {
  const annotations = { ...(tool.annotations ?? {}) };
  if (annotations.title === undefined && tool.title) annotations.title = tool.title;
  return {
    id: `${server}/${tool.name}`,
    server,
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations,
    requireApproval: configRequiresApproval(spec, tool.name),
    timeoutMs: configToolTimeoutMs(spec, tool.name),
  };
}
