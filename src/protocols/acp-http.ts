/**
 * /acp over Streamable HTTP: the SDK's experimental AcpServer (POST client messages, GET SSE streams,
 * DELETE to close, Acp-Connection-Id / Acp-Session-Id headers) behind a Hono route. Each connection
 * (each initialize) gets its own agent, accounted to the caller that opened it.
 * WebSocket upgrades to /acp are handled on the Node server's `upgrade` event (acp-ws.ts).
 *
 * A connection holds its agent and every session in it until DELETE. Clients that vanish without it
 * would leave theirs behind for the life of the process (the SDK has no idle limit), so a connection
 * with no open response (no GET stream the client is listening on) for `connectionIdleMs` is closed
 * as a DELETE would close it, cancelling a prompt turn still running in it.
 *
 * A connection belongs to the caller (API key) that opened it: a request from another key naming its
 * Acp-Connection-Id is answered by the SDK as for an unknown connection (the id is swapped for one
 * that names nothing), so it can neither use it nor learn that it exists.
 */
import { randomUUID } from 'node:crypto';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { Hono, type Context } from 'hono';
import { LOCAL_CALLER, type Caller } from '../graph/run-request.ts';
import { createAcpAgent, type AcpDeps } from './acp-agent.ts';
import { sweepIdleClients, trackBody, type ClientActivity } from './tracked-body.ts';

export interface AcpHttpDeps extends AcpDeps {
  /** The authenticated caller of an HTTP request (set by the auth middleware); defaults to deps.caller. */
  callerOf?: (c: Context) => Caller | undefined;
  /** Idle time after which a connection with no open response is closed (default 30 minutes). */
  connectionIdleMs?: number;
}

export interface AcpRoutes {
  /** Serves /acp (GET, POST, DELETE). */
  app: Hono;
  /** Closes every open ACP connection (cancelling their prompt turns). Call on shutdown. */
  close(): Promise<void>;
}

export const ACP_PATH = '/acp';
const CONNECTION_HEADER = 'acp-connection-id';

export function acpRoutes(deps: AcpHttpDeps): AcpRoutes {
  const server = new AcpServer({ createAgent: () => createAcpAgent(deps) });
  // Per connection: its GET streams still open, when it was last seen, and the caller that opened it.
  const connections = new Map<string, ClientActivity & { callerId: string }>();
  const idleMs = deps.connectionIdleMs ?? 30 * 60_000;
  const sweep = sweepIdleClients(connections, idleMs, (id) => {
    // The SDK closes a connection on DELETE only; ask it the way a client would.
    void server.handleRequest(new Request(`http://parley.local${ACP_PATH}`, { method: 'DELETE', headers: { [CONNECTION_HEADER]: id } })).catch(() => undefined);
  });

  const app = new Hono();
  app.on(['GET', 'POST', 'DELETE'], ACP_PATH, async (c) => {
    const caller = deps.callerOf?.(c) ?? deps.caller;
    const callerId = (caller ?? LOCAL_CALLER).id;
    const sent = c.req.header(CONNECTION_HEADER);
    const owner = sent === undefined ? undefined : connections.get(sent)?.callerId;
    if (owner !== undefined && owner !== callerId) return server.handleRequest(asUnknownConnection(c.req.raw));
    // Only an initialize request opens a connection; the factory is ignored for every other request.
    const response = await server.handleRequest(c.req.raw, { createAgent: () => createAcpAgent({ ...deps, ...(caller ? { caller } : {}) }) });
    // Follow connections the server opened (initialize answers with their id), never ids a client made up.
    const id = sent ?? response.headers.get(CONNECTION_HEADER) ?? undefined;
    if (id === undefined) return response;
    if (c.req.method === 'DELETE' || response.status === 404) {
      connections.delete(id);
      return response;
    }
    let activity = connections.get(id);
    if (!activity) {
      if (sent !== undefined) return response;
      connections.set(id, (activity = { open: 0, lastSeen: Date.now(), callerId }));
    }
    const a = activity;
    a.lastSeen = Date.now();
    return trackBody(response, {
      opened: () => void (a.open += 1),
      closed: () => {
        a.open -= 1;
        a.lastSeen = Date.now();
      },
    });
  });
  return {
    app,
    close: async () => {
      clearInterval(sweep);
      connections.clear();
      await server.close();
    },
  };
}

/** The same request naming a connection id that does not exist (a fresh UUID). */
function asUnknownConnection(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set(CONNECTION_HEADER, randomUUID());
  return new Request(request, { headers });
}
