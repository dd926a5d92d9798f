/**
 * Methods a path does not serve: 405 with `Allow` (the methods it does), before anything reads the
 * body. A body on a method fetch's Request cannot carry (TRACE, TRACK) would otherwise reach the body
 * check and fail there; a path no route serves is a 404 without its body read either.
 *
 * The methods come from the app's own routes, registered with explicit methods (`app.get`, `app.on`):
 * `ALL` entries are middleware (and the OAuth discovery 404s), so they name no method. An OPTIONS
 * that is not a CORS preflight (the origin guard answers those) gets 204 with `Allow`.
 * CONNECT never reaches Hono: Node's `connect` event answers it (refuseConnect).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { RouterRoute } from 'hono/types';
import { jsonError, notFound } from './errors.ts';
import { refuseOnSocket } from './upgrade.ts';

/** The methods a route may declare, in the order `Allow` lists them. */
const DECLARABLE = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app, whatever its Env
type AnyHono = Hono<any, any, any>;

/**
 * The methods some route serves at `path` (HEAD with GET, OPTIONS with any); empty when none does.
 * A JSON-RPC endpoint's GET opens an event stream: HEAD has nothing to say there.
 */
export function allowedMethods(app: AnyHono, path: string, jsonRpcPaths: string[]): string[] {
  const served = new Set<string>();
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    // Each entry the router matches is [[handler, route], params]: the route says which method it was declared for.
    const [entries] = app.router.match(method, path) as unknown as [[[unknown, RouterRoute], unknown][]];
    if (entries.some(([[, route]]) => route.method === method)) served.add(method);
  }
  if (served.size === 0) return [];
  if (served.has('GET') && !isJsonRpc(path, jsonRpcPaths)) served.add('HEAD');
  served.add('OPTIONS');
  return DECLARABLE.filter((m) => served.has(m));
}

const isJsonRpc = (path: string, jsonRpcPaths: string[]) =>
  jsonRpcPaths.includes(path.length > 1 ? path.replace(/\/$/, '') : path);

/**
 * Mount after auth and before the body limit and the JSON body check: a refused method's body is never
 * read (parsed). It is discarded, up to `discardBytes`, before the answer: left to @hono/node-server, an
 * unread body is drained for 500 ms only and then the socket is closed, so a slow client still sending a
 * large body got ECONNRESET instead of the 405 (found by the fuzz test under load).
 */
export function refuseUnservedMethods(app: AnyHono, jsonRpcPaths: string[], discardBytes = 0): MiddlewareHandler {
  return async (c, next) => {
    const method = c.req.method;
    const allowed = allowedMethods(app, c.req.path, jsonRpcPaths);
    if (allowed.includes(method) && method !== 'OPTIONS') return next();
    await discardBody(c, discardBytes);
    if (allowed.length === 0) return notFound(c);
    const allow = allowed.join(', ');
    if (method === 'OPTIONS') return c.body(null, 204, { Allow: allow });
    return methodNotAllowed(c, allow, isJsonRpc(c.req.path, jsonRpcPaths));
  };
}

/** Reads and drops the request's bytes (at most `maxBytes`; past them the listener's own drain takes over). */
async function discardBody(c: Context, maxBytes: number): Promise<void> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (maxBytes <= 0 || !incoming || incoming.readableEnded || incoming.destroyed) return;
  const length = c.req.header('content-length');
  const hasBody = length !== undefined ? length.trim() !== '0' : c.req.header('transfer-encoding') !== undefined;
  if (!hasBody) return;
  await new Promise<void>((resolve) => {
    let read = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', done);
      incoming.off('error', done);
      incoming.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) {
        incoming.pause();
        done();
      }
    };
    incoming.on('data', onData);
    incoming.once('end', done);
    incoming.once('error', done);
    incoming.once('close', done);
    incoming.resume();
  });
}

function methodNotAllowed(c: Context, allow: string, jsonRpc: boolean): Response {
  const message = `${c.req.method} is not served at ${c.req.path}; it serves ${allow}.`;
  if (jsonRpc) return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }, 405, { Allow: allow });
  return jsonError(c, 405, message, undefined, { Allow: allow });
}

/**
 * CONNECT: Node hands it to the server's `connect` event, never to Hono, and drops the socket when
 * nothing listens. Answered here in the API's shape: 405 with the path's `Allow` (a target that is
 * not a path, `host:port`, is served by no route: 404).
 */
export function refuseConnect(app: AnyHono, jsonRpcPaths: string[], target: string | undefined, socket: Duplex): void {
  const path = target?.startsWith('/') ? target.split('?', 1)[0]! : undefined;
  const allowed = path ? allowedMethods(app, path, jsonRpcPaths) : [];
  if (allowed.length === 0) return refuseOnSocket(socket, 404, `No route for CONNECT ${target ?? ''}.`);
  const allow = allowed.join(', ');
  refuseOnSocket(socket, 405, `CONNECT is not served at ${path}; it serves ${allow}.`, { Allow: allow });
}
