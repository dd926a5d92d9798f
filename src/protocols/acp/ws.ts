/**
 * /acp over WebSocket: the SDK's experimental AcpServer behind the Node server's `upgrade` event
 * (upgrades never reach Hono, so the bearer check happens here; the server checks Host and Origin
 * before). One AcpServer per socket, so each connection's runs are accounted to the API key that opened it.
 *
 * Messages obey the HTTP body rules: larger than PARLEY_BODY_LIMIT_BYTES closes the socket (1009,
 * the ws library's maxPayload; it buffered 100 MiB messages before); a text that breaks the JSON rules
 * (json-text.ts: too deep, lone surrogates, BOM) is answered with a JSON-RPC error on the same socket
 * and never reaches the SDK, whose connection router dies on a deeply nested `id`.
 * A socket counts against the ACP connection caps as a busy connection (it is a live stream, never idle).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocket, WebSocketServer } from 'ws';
import type { Caller } from '../../graph/contract.ts';
import { DEFAULT_JSON_MAX_DEPTH } from '../../http/body.ts';
import { answerableId, envelopeProblem } from '../../http/json-rpc-envelope.ts';
import { leadingRequestId, parseJsonText } from '../../http/json-text.ts';
import { refuseUpgrade } from '../../http/upgrade.ts';
import { buildAcpAgent, type AcpDeps } from './agent.ts';
import { ACP_PATH } from './http.ts';
import {
  capClients,
  DEFAULT_CLIENT_CAPS,
  refusalOf,
  RETRY_AFTER_SECONDS,
  type CappedClient,
  type ClientCaps,
} from '../shared/client-caps.ts';

export interface AcpWebSocketDeps extends AcpDeps {
  /** The caller of an upgrade request's Authorization header; undefined refuses it with 401. */
  authenticate(authorization: string | undefined): Caller | undefined;
  /** Largest message accepted (PARLEY_BODY_LIMIT_BYTES); default 1 MiB. */
  maxMessageBytes?: number;
  /** Deepest JSON nesting accepted in a message (PARLEY_JSON_MAX_DEPTH). */
  maxJsonDepth?: number;
  /** The ACP connections map shared with /acp over HTTP, so one cap covers both; default its own. */
  clients?: Map<string, CappedClient>;
  caps?: ClientCaps;
  /**
   * Whether an upgrade comes from a client on this machine acting for its user: the `parley acp` bridge,
   * which sends the service's own token (docs/service.md). Its sessions get what stdio sessions get
   * (stdio MCP servers, the project folder on disk). Default: no connection is local.
   */
  isLocal?(authorization: string | undefined): boolean;
}

export interface AcpWebSocket {
  /** Handles an upgrade for /acp and returns true; returns false for other paths (left to the caller). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Cancels every prompt in flight, then closes every open WebSocket connection; once, however often called. */
  close(): Promise<void>;
}

/** A ws WebSocket whose text messages are checked before any listener (the SDK) sees them. */
function screenedWebSocket(maxDepth: number): typeof WebSocket {
  return class ScreenedWebSocket extends WebSocket {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'message' || args[1] === true) return super.emit(event, ...args);
      const data = args[0] as Buffer | Buffer[] | ArrayBuffer;
      const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8');
      const parsed = parseJsonText(text, maxDepth);
      if (parsed.ok) {
        const problem = envelopeProblem(parsed.value);
        if (!problem) return super.emit(event, ...args);
        this.send(
          JSON.stringify({ jsonrpc: '2.0', id: answerableId(parsed.value), error: { code: -32600, message: problem } }),
        );
        return true;
      }
      const code = parsed.kind === 'syntax' ? -32700 : -32600;
      this.send(
        JSON.stringify({ jsonrpc: '2.0', id: leadingRequestId(text), error: { code, message: parsed.message } }),
      );
      return true;
    }
  };
}

export function acpWebSocket(deps: AcpWebSocketDeps): AcpWebSocket {
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: deps.maxMessageBytes ?? 1024 * 1024,
    WebSocket: screenedWebSocket(deps.maxJsonDepth ?? DEFAULT_JSON_MAX_DEPTH),
  });
  const clients = deps.clients ?? new Map<string, CappedClient>();
  const cap = capClients(clients, deps.caps ?? DEFAULT_CLIENT_CAPS);
  const open = new Map<AcpServer, ReturnType<typeof buildAcpAgent>>();
  let closing: Promise<void> | undefined;
  return {
    handleUpgrade(req, socket, head) {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== ACP_PATH) return false;
      const caller = deps.authenticate(req.headers.authorization);
      if (!caller) {
        refuseUpgrade(
          socket,
          401,
          req.headers.authorization ? 'Invalid API key.' : 'Missing API key: send Authorization: Bearer <key>.',
        );
        return true;
      }
      const admission = cap.admit(caller.id);
      if (!admission.ok) {
        const { status, message } = refusalOf(admission.scope, 'ACP connections');
        refuseUpgrade(socket, status, message, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
        return true;
      }
      const key = `ws:${randomUUID()}`;
      // One agent per socket: when the socket closes, its sessions' MCP servers stop.
      const agent = buildAcpAgent({ ...deps, caller, local: deps.isLocal?.(req.headers.authorization) === true });
      const server = new AcpServer({ createAgent: () => agent.app });
      clients.set(key, { caller: caller.id, open: 1, lastSeen: Date.now(), close: () => void server.close() });
      admission.release();
      open.set(server, agent);
      socket.once('close', () => {
        clients.delete(key);
        open.delete(server);
        void server.close().finally(() => agent.closeSessions());
      });
      createNodeWebSocketUpgradeHandler(server, webSockets)(req, socket, head);
      return true;
    },
    close() {
      // Shutdown: prompts in flight end `cancelled` (their answer sent), then each socket closes with
      // 1001 "going away", so a bridge knows at once and the server's close never waits on a socket.
      closing ??= (async () => {
        await Promise.all([...open.values()].map((a) => a.cancelTurns('the Parley service is stopping', 3_000)));
        await Promise.all([...open.keys()].map((s) => s.close()));
        open.clear();
        webSockets.close();
      })();
      return closing;
    },
  };
}
