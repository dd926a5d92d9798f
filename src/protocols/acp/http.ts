/**
 * /acp over Streamable HTTP: the SDK's experimental AcpServer (POST client messages, GET SSE streams,
 * DELETE to close, Acp-Connection-Id / Acp-Session-Id headers) behind a Hono route. Each connection
 * (each initialize) gets its own agent, accounted to the caller that opened it.
 * WebSocket upgrades to /acp are handled on the Node server's `upgrade` event (ws.ts).
 *
 * A connection holds its agent and every session in it until DELETE. Clients that vanish without it
 * would leave theirs behind for the life of the process (the SDK has no idle limit), so a connection
 * with no open response (no GET stream the client is listening on) for `connectionIdleMs` is closed
 * as a DELETE would close it, cancelling a prompt turn still running in it. Connections are capped per
 * caller and in total, WebSocket ones included (shared/client-caps.ts): an initialize over a cap closes the
 * least recently used idle connection, or, with none idle, gets 429/503 with Retry-After and a JSON-RPC error.
 *
 * A connection belongs to the caller (API key) that opened it: a request from another key naming its
 * Acp-Connection-Id is answered by the SDK as for an unknown connection (the id is swapped for one
 * that names nothing), so it can neither use it nor learn that it exists.
 *
 * Across replicas, a request naming a connection another replica holds is passed to that replica
 * (replica-forward.ts), so /acp needs no affinity at the load balancer.
 */
import { randomUUID } from 'node:crypto';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { Hono, type Context } from 'hono';
import { type Caller, LOCAL_CALLER } from '../../graph/contract.ts';
import type { SessionTools } from '../../graph/contract.ts';
import { buildAcpAgent, type AcpDeps } from './agent.ts';
import { peekJson } from '../../http/body.ts';
import {
  capClients,
  DEFAULT_CLIENT_CAPS,
  refusalOf,
  RETRY_AFTER_SECONDS,
  type CappedClient,
  type ClientCaps,
} from '../shared/client-caps.ts';
import { sweepIdleClients, trackBody } from '../shared/tracked-body.ts';
import { FORWARDED_HEADER, forwardToOwner, type ConnectionDirectory } from './replica-forward.ts';

export interface AcpHttpDeps extends AcpDeps {
  /** The authenticated caller of an HTTP request (set by the auth middleware); defaults to deps.caller. */
  callerOf?: (c: Context) => Caller | undefined;
  /** Idle time after which a connection with no open response is closed (default 30 minutes). */
  connectionIdleMs?: number;
  /** The ACP connections map shared with /acp over WebSocket, so one cap covers both; default its own. */
  clients?: Map<string, CappedClient>;
  caps?: ClientCaps;
  /** With replicas: where each connection lives, so a request reaching the wrong replica is passed on. */
  replicas?: { directory: ConnectionDirectory; replicaId: string };
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
  // The tools of every open session: their MCP servers stop at session/close, or at the latest when Parley shuts down.
  const liveTools = new Set<SessionTools>();
  const createAgent = (agentDeps: AcpDeps) => buildAcpAgent({ ...agentDeps, liveTools }).app;
  const server = new AcpServer({ createAgent: () => createAgent(deps) });
  // Per connection: whose it is, its GET streams still open, and when it was last seen.
  const connections = deps.clients ?? new Map<string, CappedClient>();
  const idleMs = deps.connectionIdleMs ?? 30 * 60_000;
  // The SDK closes a connection on DELETE only; ask it the way a client would.
  const directory = deps.replicas?.directory;
  const closeConnection = (id: string) => {
    directory?.drop(id);
    void server
      .handleRequest(
        new Request(`http://parley.local${ACP_PATH}`, { method: 'DELETE', headers: { [CONNECTION_HEADER]: id } }),
      )
      // Closing a connection that already ended: nothing to undo.
      .catch(() => undefined);
  };
  const sweep = sweepIdleClients(connections, idleMs, (_id, connection) => connection.close());
  const cap = capClients(connections, deps.caps ?? DEFAULT_CLIENT_CAPS);

  const app = new Hono();
  app.on(['GET', 'POST', 'DELETE'], ACP_PATH, async (c) => {
    const caller = deps.callerOf?.(c) ?? deps.caller;
    const callerId = (caller ?? LOCAL_CALLER).id;
    const sent = c.req.header(CONNECTION_HEADER);
    if (sent !== undefined && directory && !connections.has(sent) && c.req.header(FORWARDED_HEADER) === undefined) {
      const relayed = await passToOwner(sent, c);
      if (relayed) return relayed;
    }
    const owner = sent === undefined ? undefined : connections.get(sent)?.caller;
    if (owner !== undefined && owner !== callerId) return server.handleRequest(asUnknownConnection(c.req.raw));
    // Only an initialize request opens a connection, and it must first find room under the caps.
    const body = c.req.method === 'POST' && sent === undefined ? await peekJson(c) : undefined;
    const initialize =
      typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
    const admission = initialize ? cap.admit(callerId) : undefined;
    if (admission && !admission.ok) {
      const { status, message } = refusalOf(admission.scope, 'ACP connections');
      const id = (body as { id?: unknown }).id ?? null;
      return c.json({ jsonrpc: '2.0', id, error: { code: -32000, message } }, status, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
    }
    let response: Response;
    try {
      // The factory is ignored for every request but initialize.
      response = await server.handleRequest(c.req.raw, {
        createAgent: () => createAgent({ ...deps, ...(caller ? { caller } : {}) }),
      });
    } catch (err) {
      if (admission?.ok) admission.release();
      throw err;
    }
    // Follow connections the server opened (initialize answers with their id), never ids a client made up.
    const id = sent ?? response.headers.get(CONNECTION_HEADER) ?? undefined;
    if (id !== undefined && sent === undefined && !connections.has(id)) {
      connections.set(id, { caller: callerId, open: 0, lastSeen: Date.now(), close: () => closeConnection(id) });
    }
    if (admission?.ok) admission.release();
    if (id === undefined) return response;
    if (c.req.method === 'DELETE' || response.status === 404) {
      connections.delete(id);
      directory?.drop(id);
      return response;
    }
    const a = connections.get(id);
    if (!a) return response;
    a.lastSeen = Date.now();
    directory?.hold(id);
    return trackBody(response, {
      opened: () => void (a.open += 1),
      closed: () => {
        a.open -= 1;
        a.lastSeen = Date.now();
      },
    });
  });
  /** The owner's answer; undefined when no other replica holds the connection (or it cannot be reached). */
  async function passToOwner(connectionId: string, c: Context): Promise<Response | undefined> {
    const ownerUrl = await directory!.ownerElsewhere(connectionId);
    if (!ownerUrl) return undefined;
    // The body was read (and checked) once by the app's middleware; Hono hands out that copy.
    const body = c.req.method === 'POST' ? await c.req.arrayBuffer() : undefined;
    const answer = await forwardToOwner(ownerUrl, c.req.raw, body, deps.replicas!.replicaId);
    if (!answer) directory!.forget(connectionId);
    return answer;
  }

  return {
    app,
    close: async () => {
      clearInterval(sweep);
      connections.clear();
      await server.close();
      // Shutdown: each session's tools log their own close failures; one must not stop the others closing.
      await Promise.all([...liveTools].map((tools) => tools.close().catch(() => undefined)));
      liveTools.clear();
    },
  };
}

/** The same request naming a connection id that does not exist (a fresh UUID). */
function asUnknownConnection(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set(CONNECTION_HEADER, randomUUID());
  return new Request(request, { headers });
}
