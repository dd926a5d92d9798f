/**
 * /acp over WebSocket: the SDK's experimental AcpServer behind the Node server's `upgrade` event
 * (upgrades never reach Hono, so the bearer check happens here). One AcpServer per socket, so each
 * connection's runs are accounted to the API key that opened it.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocketServer } from 'ws';
import type { Caller } from '../graph/run-request.ts';
import { createAcpAgent, type AcpDeps } from './acp-agent.ts';
import { ACP_PATH } from './acp-http.ts';

export interface AcpWebSocketDeps extends AcpDeps {
  /** The caller of an upgrade request's Authorization header; undefined refuses it with 401. */
  authenticate(authorization: string | undefined): Caller | undefined;
}

export interface AcpWebSocket {
  /** Handles an upgrade for /acp and returns true; returns false for other paths (left to the caller). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every open WebSocket connection (cancelling their prompt turns). */
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: string, message: string): void {
  const body = JSON.stringify({ error: { code: 'unauthorized', message } });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export function acpWebSocket(deps: AcpWebSocketDeps): AcpWebSocket {
  const webSockets = new WebSocketServer({ noServer: true });
  const open = new Set<AcpServer>();
  return {
    handleUpgrade(req, socket, head) {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== ACP_PATH) return false;
      const caller = deps.authenticate(req.headers.authorization);
      if (!caller) {
        refuse(socket, '401 Unauthorized', req.headers.authorization ? 'Invalid API key.' : 'Missing API key: send Authorization: Bearer <key>.');
        return true;
      }
      const server = new AcpServer({ createAgent: () => createAcpAgent({ ...deps, caller }) });
      open.add(server);
      socket.once('close', () => {
        open.delete(server);
        void server.close();
      });
      createNodeWebSocketUpgradeHandler(server, webSockets)(req, socket, head);
      return true;
    },
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      open.clear();
      webSockets.close();
    },
  };
}
