/**
 * /acp over Streamable HTTP: the SDK's experimental AcpServer (POST client messages, GET SSE streams,
 * DELETE to close, Acp-Connection-Id / Acp-Session-Id headers) behind a Hono route. Each connection
 * (each initialize) gets its own agent, accounted to the caller that opened it.
 * WebSocket upgrades to /acp are handled on the Node server's `upgrade` event (acp-ws.ts).
 */
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { Hono, type Context } from 'hono';
import type { Caller } from '../graph/run-request.ts';
import { createAcpAgent, type AcpDeps } from './acp-agent.ts';

export interface AcpHttpDeps extends AcpDeps {
  /** The authenticated caller of an HTTP request (set by the auth middleware); defaults to deps.caller. */
  callerOf?: (c: Context) => Caller | undefined;
}

export interface AcpRoutes {
  /** Serves /acp (GET, POST, DELETE). */
  app: Hono;
  /** Closes every open ACP connection (cancelling their prompt turns). Call on shutdown. */
  close(): Promise<void>;
}

export const ACP_PATH = '/acp';

export function acpRoutes(deps: AcpHttpDeps): AcpRoutes {
  const server = new AcpServer({ createAgent: () => createAcpAgent(deps) });
  const app = new Hono();
  app.on(['GET', 'POST', 'DELETE'], ACP_PATH, (c) => {
    const caller = deps.callerOf?.(c) ?? deps.caller;
    // Only an initialize request opens a connection; the factory is ignored for every other request.
    return server.handleRequest(c.req.raw, { createAgent: () => createAcpAgent({ ...deps, ...(caller ? { caller } : {}) }) });
  });
  return { app, close: () => server.close() };
}
