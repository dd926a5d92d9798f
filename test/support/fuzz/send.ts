/**
 * Sends a generated request over real HTTP (node:http, which unlike fetch lets us set Host, send
 * any method and any bytes) or over a WebSocket (ws), and reads what comes back within bounds:
 * streams that stay open (an SSE listener) are read for a moment, then cut.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { encode, resolve, serialize, type FuzzRequest, type Placeholders } from './wire.ts';

export interface Outcome {
  /** HTTP status, or 'error' (connection reset, socket hang up) or 'timeout' (no answer in time). */
  status: number | 'error' | 'timeout';
  contentType: string;
  /** What came back (cut at MAX_BODY), plus for WebSockets the messages and the close code. */
  body: string;
  /** The transport error or the WebSocket close, when there is one. */
  detail?: string;
  /** The Allow header, when there is one (a 405 must send it). */
  allow?: string;
  ms: number;
}

/** No answer (not even headers) within this: a hang. */
const HEADERS_TIMEOUT_MS = 10_000;
/** A streaming response is read this long, then cut (a GET SSE listener never ends by itself). */
const STREAM_READ_MS = 300;
const BODY_READ_MS = 10_000;
const MAX_BODY = 256 * 1024;

export function sendHttp(baseUrl: string, req: FuzzRequest, values: Placeholders): Promise<Outcome> {
  const started = Date.now();
  const url = new URL(baseUrl);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = resolve(v, values);
  const payload = req.body ? encode(req.body, values) : undefined;
  if (payload) headers['content-length'] = String(payload.length);
  return new Promise((done) => {
    let settled = false;
    const finish = (o: Omit<Outcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(noAnswer);
      done({ ...o, ms: Date.now() - started });
    };
    const r = httpRequest({
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: resolve(req.path, values),
      headers,
      agent: false,
      setHost: !('host' in headers),
    });
    const noAnswer = setTimeout(() => {
      finish({
        status: 'timeout',
        contentType: '',
        body: '',
        detail: `no response headers within ${HEADERS_TIMEOUT_MS} ms`,
      });
      r.destroy();
    }, HEADERS_TIMEOUT_MS);
    r.on('error', (err) => finish({ status: 'error', contentType: '', body: '', detail: err.message }));
    // A CONNECT's answer, whatever its status, comes with the socket on `connect` (its body on the socket).
    r.on('connect', (res: IncomingMessage, socket: Duplex, head: Buffer) => {
      clearTimeout(noAnswer);
      // What the parser read past the headers (the body, here) comes as `head`.
      const chunks: Buffer[] = [head];
      const end = () =>
        finish({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
          ...(res.headers.allow !== undefined ? { allow: res.headers.allow } : {}),
        });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', end);
      socket.on('error', end);
      setTimeout(() => (end(), socket.destroy()), BODY_READ_MS).unref();
    });
    r.on('response', (res) => {
      clearTimeout(noAnswer);
      const contentType = String(res.headers['content-type'] ?? '');
      const allow = res.headers.allow !== undefined ? { allow: res.headers.allow } : {};
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = () => {
        res.destroy();
        r.destroy();
        finish({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8'), ...allow });
      };
      const cut = setTimeout(stop, contentType.includes('text/event-stream') ? STREAM_READ_MS : BODY_READ_MS);
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY) stop();
      });
      res.on('end', () => {
        clearTimeout(cut);
        finish({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8'), ...allow });
      });
      res.on('error', () => {
        clearTimeout(cut);
        // A response cut by the server mid-body: what arrived is still checked.
        finish({
          status: res.statusCode ?? 0,
          contentType,
          body: Buffer.concat(chunks).toString('utf8'),
          detail: 'response aborted',
        });
      });
    });
    if (payload) r.end(payload);
    else r.end();
  });
}

/** How long a WebSocket case waits for the server's answers after its last frame. */
const WS_SETTLE_MS = 250;

/**
 * A WebSocket case: upgrade with the request's headers, initialize, open a session (neither starts a
 * run), send the generated frames, collect what comes back. The body is every message received; a
 * refused upgrade reports its HTTP status.
 */
export function sendWebSocket(baseUrl: string, req: FuzzRequest, values: Placeholders): Promise<Outcome> {
  const started = Date.now();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = resolve(v, values);
  const { host, origin, ...rest } = headers;
  return new Promise((done) => {
    const received: string[] = [];
    let settled = false;
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${req.path}`, {
      headers: { ...rest, ...(host !== undefined ? { host } : {}) },
      ...(origin !== undefined ? { origin } : {}),
      handshakeTimeout: HEADERS_TIMEOUT_MS,
      maxPayload: 64 * 1024 * 1024,
    });
    const finish = (o: Omit<Outcome, 'ms' | 'body' | 'contentType'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      done({ ...o, contentType: 'websocket', body: received.join('\n'), ms: Date.now() - started });
      ws.terminate();
    };
    const guard = setTimeout(
      () => finish({ status: 'timeout', detail: 'the WebSocket case did not finish in 15 s' }),
      15_000,
    );
    ws.on('unexpected-response', (_r, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        finish({ status: res.statusCode ?? 0 });
      });
    });
    ws.on('error', (err) => finish({ status: 'error', detail: err.message }));
    ws.on('close', (code, reason) =>
      finish({ status: 101, detail: `closed by the server: ${code} ${reason.toString()}` }),
    );
    ws.on('message', (data) => received.push(data.toString()));
    ws.on('open', () => {
      void (async () => {
        const call = (id: number, method: string, params: unknown) =>
          ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        call(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
        call(2, 'session/new', { cwd: '/tmp', mcpServers: [] });
        const session = await new Promise<string>((ok) => {
          const onMessage = (data: unknown) => {
            const m = /"sessionId":"([^"]+)"/.exec(String(data));
            if (m) {
              ws.off('message', onMessage);
              ok(m[1]!);
            }
          };
          ws.on('message', onMessage);
          setTimeout(() => ok('no-session'), 2_000);
        });
        const local = { ...values, 'acp-session': session };
        for (const frame of req.frames ?? []) {
          if (ws.readyState !== WebSocket.OPEN) break;
          if ('binary' in frame) ws.send(randomBytes(frame.binary));
          else ws.send('json' in frame ? serialize(frame.json, local) : frame.raw);
        }
        setTimeout(() => finish({ status: 101 }), WS_SETTLE_MS);
      })();
    });
  });
}
