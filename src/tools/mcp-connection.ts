/**
 * One live MCP client connection to one configured server. Connects on demand (concurrent
 * callers share one attempt), forgets the client when the transport closes (a crashed stdio
 * server, a dropped HTTP session) so the next use reconnects, and answers the server's
 * elicitation/create requests through a callback.
 */
import { Client, SdkHttpError, type Tool, type ElicitResult, type CallToolResult } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { createMcpTransport } from './mcp-transport.ts';
import type { Logger } from '../log.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { traceCarrier } from './trace-context.ts';

/** Form-mode elicitation as the server sent it. */
export interface ElicitationAsk {
  message: string;
  requestedSchema?: Record<string, unknown>;
}

export type ElicitationHandler = (ask: ElicitationAsk, signal: AbortSignal) => Promise<ElicitResult>;

export interface McpConnectionOptions {
  clientInfo: { name: string; version: string };
  logger: Logger;
  /** When set, the client declares the elicitation capability and forwards requests here. */
  onElicitation?: ElicitationHandler;
  connectTimeoutMs: number;
  /** Runs the connect outside any caller's async context (the host's call scope). */
  detached?: <T>(fn: () => T) => T;
}

/** setTimeout's ceiling; the host enforces call deadlines itself (they pause during elicitation). */
const NO_SDK_TIMEOUT = 2_147_483_647;

export class McpConnection {
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #tools: Tool[] | undefined;
  #closed = false;
  /** Bumped per successful connect; lets callers tell a reconnect happened. */
  generation = 0;

  constructor(
    readonly name: string,
    readonly spec: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {}

  get connected(): boolean {
    return this.#client !== undefined;
  }

  async client(): Promise<Client> {
    if (this.#closed) throw new Error(`MCP server '${this.name}' connection is closed (shutting down)`);
    if (this.#client) return this.#client;
    const detached = this.options.detached ?? ((fn) => fn());
    this.#connecting ??= detached(() => this.#connect()).finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async listTools(): Promise<Tool[]> {
    if (this.#client && this.#tools) return this.#tools;
    return this.#withSession(async (client) => {
      const { tools } = await client.listTools(undefined, { timeout: this.options.connectTimeoutMs });
      if (this.#client === client) this.#tools = tools;
      return tools;
    });
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const trace = traceCarrier();
    const params = { name, arguments: args, ...(Object.keys(trace).length ? { _meta: trace } : {}) };
    return this.#withSession(
      async (client) => (await client.callTool(params, { signal, timeout: NO_SDK_TIMEOUT })) as CallToolResult,
    );
  }

  /**
   * Streamable HTTP: a 404 on a request that carried our session id means the server forgot the
   * session (restart, expiry). It did not process the request, so start a new session and send
   * it once more (MCP spec, "Session Management").
   */
  async #withSession<T>(op: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await op(client);
    } catch (err) {
      if (!(err instanceof SdkHttpError && err.status === 404 && this.spec.transport === 'streamable-http')) throw err;
      this.options.logger.info('MCP session expired; starting a new one', { server: this.name });
      if (this.#client === client) {
        this.#client = undefined;
        this.#tools = undefined;
      }
      // Closing a connection already failing: its error was handled above.
      await client.close().catch(() => {});
      return op(await this.client());
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    // A connect that failed has nothing to close.
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    // Shutdown: a server that is already gone needs no closing.
    await client?.close().catch(() => {});
  }

  async #connect(): Promise<Client> {
    const client = new Client(this.options.clientInfo, {
      capabilities: this.options.onElicitation ? { elicitation: { form: {} } } : {},
    });
    if (this.options.onElicitation) this.#handleElicitation(client, this.options.onElicitation);
    const transport = this.#transport();
    client.onclose = () => {
      if (this.#client === client) {
        this.#client = undefined;
        this.#tools = undefined;
        if (!this.#closed)
          this.options.logger.warn('MCP server connection closed; will reconnect on next use', { server: this.name });
      }
    };
    client.onerror = (err) =>
      this.options.logger.debug('MCP transport error', { server: this.name, error: err.message });
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (err) {
      // The connect error is the one thrown below; closing a half-open client may fail too.
      await client.close().catch(() => {});
      throw new Error(`cannot connect to MCP server '${this.name}': ${(err as Error).message}`, { cause: err });
    }
    if (this.#closed) {
      // Shutting down: the error thrown below says so; a close failure adds nothing.
      await client.close().catch(() => {});
      throw new Error(`MCP server '${this.name}' connection is closed (shutting down)`);
    }
    this.#client = client;
    this.#tools = undefined;
    this.generation += 1;
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      this.#tools = undefined;
    });
    return client;
  }

  #transport(): Transport {
    // A server's stderr is its log; keep it at debug level.
    return createMcpTransport(this.spec, (text) =>
      this.options.logger.debug('MCP server stderr', { server: this.name, text: text.trimEnd() }),
    );
  }

  #handleElicitation(client: Client, handler: ElicitationHandler): void {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown> };
      if (params.mode === 'url') return { action: 'decline' };
      return handler({ message: params.message, requestedSchema: params.requestedSchema }, ctx.mcpReq.signal);
    });
  }
}
