/**
 * MCP over Streamable HTTP, stateful: one transport + McpServer per session (Mcp-Session-Id).
 * The SDK's Hono helper supplies Host/Origin validation (DNS-rebinding protection when bound to
 * a loopback address, or the allowedHosts list) and the JSON body parsing; the SDK transport does
 * the protocol. Mount the returned app under /mcp.
 *
 * Clients that vanish without DELETE /mcp would leave their session behind, so a session with no
 * open response (no running tool call, no listening GET stream) for `sessionIdleMs` is closed.
 *
 * A session belongs to the caller (API key) that initialized it and acts for that caller only:
 * another key sending its Mcp-Session-Id gets exactly the answer an unknown session gets.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { createMcpHonoApp } from '@modelcontextprotocol/hono';
import { WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../config.ts';
import { LOCAL_CALLER, type Caller } from '../graph/run-request.ts';
import { createParleyMcpServer, type McpServerDeps } from './mcp-server.ts';
import { sweepIdleClients, trackBody, type ClientActivity } from './tracked-body.ts';

export interface McpRoutesDeps extends McpServerDeps {
  config: Config;
  /** Host names accepted in the Host header when bound to a non-loopback address (e.g. a proxy's name). */
  allowedHosts?: string[];
  /** The authenticated caller the auth middleware established (default: the one local caller). */
  callerOf?: (c: Context) => Caller | undefined;
  /** Idle time after which a session with no open response is closed (default 30 minutes). */
  sessionIdleMs?: number;
}

/** `open` counts responses still streaming (SSE of a tool call, the GET notification stream). */
interface Session extends ClientActivity {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  /** The caller that initialized the session: the only one that may use it. */
  callerId: string;
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
  const sweep = sweepIdleClients(sessions, idleMs, (_sid, s) => void s.server.close().catch(() => undefined));
  const app = createMcpHonoApp({
    host: deps.config.server.host,
    allowedHosts: deps.allowedHosts,
    maxRequestBodySize: deps.config.server.bodyLimitBytes,
  });

  app.all('/', async (c) => {
    const id = c.req.header('mcp-session-id');
    const caller = deps.callerOf?.(c) ?? LOCAL_CALLER;
    const options = { parsedBody: c.get('parsedBody' as never) as unknown, authInfo: { token: '', clientId: caller.id, scopes: [] } };
    if (id !== undefined) {
      const found = sessions.get(id);
      // Bound to its key: even an admin cannot speak in another caller's session.
      const session = found?.callerId === caller.id ? found : undefined;
      // Same answer the SDK transport gives for a closed session, so clients re-initialize.
      if (!session) return c.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, 404);
      session.lastSeen = Date.now();
      return tracked(session, await session.transport.handleRequest(c.req.raw, options));
    }
    // No session yet: a fresh transport answers; it only opens a session for an initialize request.
    const server = createParleyMcpServer({ ...deps, caller });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, server, callerId: caller.id, open: 0, lastSeen: Date.now() }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, options);
    const opened = transport.sessionId ? sessions.get(transport.sessionId) : undefined;
    if (!opened) {
      await server.close();
      return response;
    }
    return tracked(opened, response);
  });

  return Object.assign(app, {
    /** Closes every open session (server shutdown). */
    closeSessions: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
    },
  });
}
