/**
 * MCP over Streamable HTTP on both revisions: a 2026-07-28 request (per-request `_meta`) goes to the
 * stateless entry (modern.ts); a 2025-era one to the sessions below, as the SDK's `isLegacyRequest` sorts them.
 *
 * 2025-era, stateful: one transport + McpServer per session (Mcp-Session-Id).
 * The SDK's Hono helper supplies Host/Origin validation (DNS-rebinding protection when bound to
 * a loopback address, or the allowedHosts list) and the JSON body parsing; the SDK transport does
 * the protocol. Mount the returned app under /mcp.
 *
 * Clients that vanish without DELETE /mcp would leave their session behind, so a session with no
 * open response (no running tool call, no listening GET stream) for `sessionIdleMs` is closed, and
 * sessions are capped per caller and in total (shared/client-caps.ts): an initialize over a cap closes the
 * least recently used idle session, or, with none idle, gets 429/503 with Retry-After and a JSON-RPC error.
 *
 * A session belongs to the caller (API key) that initialized it and acts for that caller only:
 * another key sending its Mcp-Session-Id gets exactly the answer an unknown session gets.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { createMcpHonoApp } from '@modelcontextprotocol/hono';
import {
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServer,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { authInfoOf, modernMcpHandler } from './modern.ts';
import type { Config } from '../../config.ts';
import { isLoopback, LOOPBACK_NAMES } from '../../http/request-origin.ts';
import { type Caller, LOCAL_CALLER } from '../../graph/contract.ts';
import { createParleyMcpServer, type McpServerDeps } from './server.ts';
import { checkParams } from './params.ts';
import {
  capClients,
  DEFAULT_CLIENT_CAPS,
  refusalOf,
  RETRY_AFTER_SECONDS,
  type CappedClient,
} from '../shared/client-caps.ts';
import { sweepIdleClients, trackBody } from '../shared/tracked-body.ts';
import type { McpEventStore } from '../../store/mcp-events/lmdb-event-store.ts';
import { sessionEvents } from '../../store/mcp-events/session-scope.ts';

export interface McpRoutesDeps extends McpServerDeps {
  config: Config;
  /** Host names accepted in the Host header when bound to a non-loopback address (e.g. a proxy's name). */
  allowedHosts?: string[];
  /** The authenticated caller the auth middleware established (default: the one local caller). */
  callerOf?: (c: Context) => Caller | undefined;
  /** Idle time after which a session with no open response is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Keeps each SSE message so a client can resume a cut stream with Last-Event-ID (src/store/mcp-events/). */
  eventStore?: McpEventStore;
  /**
   * Replicas (docs/deployment.md): sessions are recorded in the event store, and a request for a session
   * opened on another replica is served here. Without it a session lives and ends in this process.
   */
  sharedSessions?: boolean;
  /** Where 2026-07-28 `subscriptions/listen` streams hear of changes (replicas: listen-bus.ts); default in-process. */
  listenBus?: ServerEventBus;
}

/** `open` counts responses still streaming (SSE of a tool call, the GET notification stream). */
interface Session extends CappedClient {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
}

/** The same response, counting it as open on the session until its body ends or is cancelled. */
function tracked(session: Session, response: Response): Response {
  session.lastSeen = Date.now();
  return trackBody(response, {
    opened: () => void (session.open += 1),
    closed: () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    },
  });
}

export function mcpRoutes(deps: McpRoutesDeps) {
  const sessions = new Map<string, Session>();
  const idleMs = deps.sessionIdleMs ?? 30 * 60_000;
  const sweep = sweepIdleClients(sessions, idleMs, (_sid, s) => s.close());
  const cap = capClients(sessions, deps.config.protocols.mcpSessions ?? DEFAULT_CLIENT_CAPS);
  // The app's own Host/Origin check (request-origin.ts) runs first; the SDK helper's must not refuse what it allowed.
  const extraHosts = deps.allowedHosts ?? deps.config.server.allowedHosts;
  const checked = isLoopback(deps.config.server.host) || extraHosts.length > 0;
  const app = createMcpHonoApp({
    host: deps.config.server.host,
    allowedHosts: checked ? [...LOOPBACK_NAMES, ...extraHosts] : undefined,
    allowedOrigins: checked
      ? [...LOOPBACK_NAMES, ...extraHosts, ...deps.config.server.allowedOrigins.map((o) => new URL(o).hostname)]
      : undefined,
    maxRequestBodySize: deps.config.server.bodyLimitBytes,
  });

  /** A server and its transport for one session; the session is registered once initialized. */
  async function openSession(caller: Caller, sessionId: () => string) {
    const server = createParleyMcpServer({ ...deps, caller });
    // The session's own view of the event store; the transport exists before its id does.
    const eventStore = deps.eventStore && sessionEvents(deps.eventStore, () => transport.sessionId);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: sessionId,
      eventStore,
      onsessioninitialized: (sid) =>
        void sessions.set(sid, {
          transport,
          server,
          caller: caller.id,
          open: 0,
          lastSeen: Date.now(),
          // Closing a server whose transport is already closed: nothing to undo.
          close: () => void server.close().catch(() => undefined),
        }),
      onsessionclosed: (sid) => {
        sessions.delete(sid);
        // A record left behind expires with the event store's sweep.
        if (deps.sharedSessions) void deps.eventStore?.deleteSession(sid).catch(() => undefined);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    checkParams(transport);
    return { server, transport };
  }

  /**
   * A session this process has not seen, opened on another replica (or before a restart): a fresh
   * server is set up as the session's was, by replaying the client's initialize request and its
   * initialized notification under the same session id. Only for the caller that opened it, within the caps.
   */
  async function revive(id: string, caller: Caller, authInfo: AuthInfo): Promise<Session | undefined> {
    if (!deps.sharedSessions) return undefined;
    // Store unreachable: the session is answered as unknown (404) and the client initializes again.
    const record = await deps.eventStore?.getSession(id).catch(() => undefined);
    if (!record || record.callerId !== caller.id) return undefined;
    const admission = cap.admit(caller.id);
    if (!admission.ok) return undefined;
    try {
      const { transport } = await openSession(caller, () => id);
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        transport.handleRequest(
          new Request('http://localhost/mcp', {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify(body),
          }),
          { parsedBody: body, authInfo },
        );
      const init = record.initialize as { params?: { protocolVersion?: string } };
      await (await post(record.initialize)).body?.cancel();
      await (
        await post(
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { 'mcp-session-id': id, 'mcp-protocol-version': init.params?.protocolVersion ?? '2025-06-18' },
        )
      ).body?.cancel();
      const session = sessions.get(id);
      if (session) {
        deps.logger.info('mcp: serving a session opened elsewhere (another replica, or before a restart)', {
          session: id,
        });
        // Only refreshes the record's age; the record itself is already stored.
        void deps.eventStore?.putSession({ ...record, at: Date.now() }).catch(() => undefined);
      }
      return session;
    } finally {
      admission.release();
    }
  }

  const modern = modernMcpHandler({
    ...deps,
    maxRequestBodySize: deps.config.server.bodyLimitBytes,
    ...(deps.listenBus ? { bus: deps.listenBus } : {}),
    maxSubscriptions: deps.config.protocols.mcpSessions?.total ?? DEFAULT_CLIENT_CAPS.total,
  });

  app.on(['GET', 'POST', 'DELETE'], '/', async (c) => {
    const id = c.req.header('mcp-session-id');
    const caller = deps.callerOf?.(c) ?? LOCAL_CALLER;
    const options = { parsedBody: c.get('parsedBody' as never) as unknown, authInfo: authInfoOf(caller) };
    // 2026-07-28 (a `_meta` envelope claim, or a modern MCP-Protocol-Version): stateless, no session.
    const legacy = await isLegacyRequest(c.req.raw, options.parsedBody, {
      maxRequestBodySize: deps.config.server.bodyLimitBytes,
    });
    if (!legacy) return modern.fetch(c.req.raw, options);
    if (id !== undefined) {
      // Opened on another replica (or before a restart): served here from its stored record.
      const found = sessions.get(id) ?? (await revive(id, caller, options.authInfo));
      // Bound to its key: even an admin cannot speak in another caller's session.
      const session = found?.caller === caller.id ? found : undefined;
      // Same answer the SDK transport gives for a closed session, so clients re-initialize.
      if (!session)
        return c.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, 404);
      session.lastSeen = Date.now();
      return tracked(session, await session.transport.handleRequest(c.req.raw, options));
    }
    // No session yet: a fresh transport answers; it only opens a session for an initialize request,
    // and an initialize must first find room under the caps.
    const admission = isInitializeRequest(options.parsedBody) ? cap.admit(caller.id) : undefined;
    if (admission && !admission.ok) {
      const { status, message } = refusalOf(admission.scope, 'MCP sessions');
      const id = (options.parsedBody as { id: string | number }).id;
      return c.json({ jsonrpc: '2.0', id, error: { code: -32000, message } }, status, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    }
    try {
      const { server, transport } = await openSession(caller, () => randomUUID());
      const response = await transport.handleRequest(c.req.raw, options);
      const opened = transport.sessionId ? sessions.get(transport.sessionId) : undefined;
      if (!opened) {
        await server.close();
        return response;
      }
      // Recorded before the client learns the id: any replica can serve its next request.
      if (deps.sharedSessions)
        await deps.eventStore?.putSession({
          id: opened.transport.sessionId!,
          callerId: caller.id,
          initialize: options.parsedBody,
          at: Date.now(),
        });
      return tracked(opened, response);
    } finally {
      if (admission?.ok) admission.release();
    }
  });

  return Object.assign(app, {
    /** Closes every open session (server shutdown). */
    closeSessions: async () => {
      clearInterval(sweep);
      await modern.close();
      await Promise.all([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
    },
  });
}
