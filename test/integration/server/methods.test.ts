/**
 * Issue 44 §1: a method a route does not serve, with a JSON body or without, is a 405 with `Allow`
 * on every route (TRACE with a body used to be a 500 from the body check); a path no route serves is
 * a 404; a method name Node's HTTP parser does not know is the parser's 400. Over real HTTP (node:http,
 * which sends any method) against the whole server with API keys; nothing starts a run.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REFUSED_SOCKET_LINGER_MS } from '../../../src/http/upgrade.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { startShippedParley, type ShippedParley } from '../../support/server.ts';

const KEY = 'methods-key';
let server: ShippedParley;

beforeAll(async () => {
  server = await startShippedParley({ PARLEY_API_KEYS: KEY });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const send = (method: string, path: string, body?: string, auth = true) =>
  rawRequest(server.url, method, path, auth ? { authorization: `Bearer ${KEY}` } : {}, body);

/** Every route's path (ids filled in) and the methods it serves, as `Allow` must list them. */
const ROUTES: [path: string, allow: string][] = [
  ['/health', 'GET, HEAD, OPTIONS'],
  ['/ready', 'GET, HEAD, OPTIONS'],
  ['/stream', 'POST, OPTIONS'],
  ['/stream/r1', 'GET, HEAD, OPTIONS'],
  ['/stream/r1/cancel', 'POST, OPTIONS'],
  ['/api/runs', 'GET, HEAD, OPTIONS'],
  ['/api/runs/r1', 'GET, HEAD, OPTIONS'],
  ['/api/runs/r1/events', 'GET, HEAD, OPTIONS'],
  ['/api/runs/r1/checkpoints', 'GET, HEAD, OPTIONS'],
  ['/api/runs/r1/fork', 'POST, OPTIONS'],
  ['/api/evals', 'GET, HEAD, OPTIONS'],
  ['/api/specialists', 'GET, HEAD, OPTIONS'],
  ['/api/threads', 'GET, HEAD, OPTIONS'],
  ['/api/threads/t1', 'GET, HEAD, DELETE, OPTIONS'],
  ['/api/decisions', 'GET, HEAD, OPTIONS'],
  ['/api/approve', 'POST, OPTIONS'],
  ['/api/approvals', 'GET, HEAD, OPTIONS'],
  ['/mcp/config', 'GET, HEAD, OPTIONS'],
  ['/mcp/reload', 'POST, OPTIONS'],
  ['/ag-ui', 'POST, OPTIONS'],
  ['/v1/chat/completions', 'POST, OPTIONS'],
  ['/v1/models', 'GET, HEAD, OPTIONS'],
  ['/.well-known/agent-card.json', 'GET, HEAD, OPTIONS'],
  ['/a2a', 'POST, OPTIONS'],
  ['/a2a/rest/message:send', 'GET, HEAD, POST, DELETE, OPTIONS'],
  ['/mcp', 'GET, POST, DELETE, OPTIONS'],
  ['/acp', 'GET, POST, DELETE, OPTIONS'],
];
const JSON_RPC = new Set(['/a2a', '/mcp', '/acp']);
/** Methods Node's parser knows that no Parley route serves; TRACE and PROPFIND with a body were the 500s. */
const UNSERVED = ['TRACE', 'PROPFIND', 'PUT', 'PATCH', 'MKCOL', 'LOCK', 'CONNECT'];
const BODY = JSON.stringify({ query: 'hello', jsonrpc: '2.0', id: 1, method: 'x' });

describe('a method the route does not serve', () => {
  it('is a 405 with Allow on every route, with a JSON body or without, and starts nothing', async () => {
    const wrong: string[] = [];
    for (const [path, allow] of ROUTES) {
      const served = allow.split(', ');
      for (const method of [...UNSERVED, 'GET', 'POST', 'DELETE'].filter((m) => !served.includes(m))) {
        for (const body of [BODY, undefined]) {
          const a = await send(method, path, body);
          const shaped =
            method === 'CONNECT' ||
            (JSON_RPC.has(path)
              ? (JSON.parse(a.body) as { error?: { code?: number } }).error?.code === -32600
              : (JSON.parse(a.body) as { error?: { code?: string } }).error?.code === 'method_not_allowed');
          if (a.status !== 405 || a.allow !== allow || !shaped)
            wrong.push(`${method} ${path}${body ? ' +body' : ''}: ${a.status} Allow=${a.allow} ${a.body.slice(0, 80)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(server.parley.engine.retainedRuns).toBe(0);
    expect(await server.parley.store.listRuns({ limit: 10 })).toEqual([]);
  }, 120_000);

  it('OPTIONS that is not a CORS preflight answers 204 with Allow', async () => {
    for (const [path, allow] of ROUTES) {
      const a = await send('OPTIONS', path);
      expect([path, a.status, a.allow]).toEqual([path, 204, allow]);
    }
  });

  it('a path no route serves is a 404 whatever the method, its body unread', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'GET', 'POST', 'CONNECT']) {
      const a = await send(method, '/no-such-route', BODY);
      expect([method, a.status, a.allow]).toEqual([method, 404, undefined]);
    }
  });

  it('asks for auth before it says which methods a route serves', async () => {
    for (const method of ['TRACE', 'CONNECT']) {
      const a = await send(method, '/stream', BODY, false);
      expect([method, a.status, a.allow]).toEqual([method, 401, undefined]);
    }
  });

  it('a refused CONNECT or upgrade leaves no connection behind once its client went, or after a while if it stays', async () => {
    const open = () => server.parley.openConnections();
    // The tests above refused CONNECTs too: their sockets are gone once the linger is over.
    await new Promise((r) => setTimeout(r, REFUSED_SOCKET_LINGER_MS + 200));
    const baseline = open();
    const { port } = new URL(server.url);
    const head = [
      'CONNECT /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ' + KEY + '\r\n\r\n',
      'CONNECT /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      'GET /no-socket-here HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    ];
    /** Sends `request` on a raw socket, reads the answer to the server's end; `leave` says what the client does then. */
    const refused = (request: string, leave: 'end' | 'destroy' | 'stay') =>
      new Promise<{ answer: string; socket: Socket }>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
        socket.allowHalfOpen = true;
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
        socket.on('end', () => {
          if (leave === 'end') socket.end();
          if (leave === 'destroy') socket.destroy();
          resolve({ answer, socket });
        });
        socket.on('error', reject);
      });
    for (const request of head)
      for (const leave of ['end', 'destroy'] as const) {
        const { answer } = await refused(request, leave);
        expect(answer).toMatch(/^HTTP\/1\.1 (401|404|405) /);
        await vi.waitFor(() => expect(open(), `${request.split(' ', 2).join(' ')} then ${leave}`).toBe(baseline), {
          timeout: 1_000,
        });
      }
    // A client that never closes its side is cut: the server closes the socket itself.
    const started = Date.now();
    const { socket } = await refused(head[0]!, 'stay');
    expect(open()).toBe(baseline + 1);
    await vi.waitFor(() => expect(open()).toBe(baseline), { timeout: REFUSED_SOCKET_LINGER_MS + 3_000, interval: 50 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(REFUSED_SOCKET_LINGER_MS - 100);
    socket.destroy();
  }, 30_000);

  it('a method name the HTTP parser does not know is its 400, and the server goes on', async () => {
    const a = await send('FROBNICATE', '/stream', BODY);
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: 'bad_request', message: /Unknown HTTP method/ } });
    expect((await send('GET', '/health')).status).toBe(200);
  });

  /** Writes `head` and `body` on a raw socket and reads until the server closes: the answer, or the socket's error. */
  const rawExchange = (head: string, body = '') =>
    new Promise<{ answer: string; error?: string }>((resolve) => {
      const url = new URL(server.url);
      const socket: Socket = connect(Number(url.port), url.hostname);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('error', (err: NodeJS.ErrnoException) => resolve({ answer, error: err.code ?? err.message }));
      socket.on('close', () => resolve({ answer }));
      socket.write(head + body);
      socket.end();
    });

  it('a refusal by the HTTP parser is read by a client still sending a large body: no reset (Node 24 reset it)', async () => {
    const body = 'x'.repeat(1_500_000);
    for (let i = 0; i < 5; i++) {
      const { answer, error } = await rawExchange(
        `BREW /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      );
      expect(error).toBeUndefined();
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toContain('"code":"bad_request"');
    }
    // Headers past Node's limit (16 KB): 431 in the API's error shape.
    const { answer } = await rawExchange(
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(answer).toContain('"code":"headers_too_large"');
    expect((await send('GET', '/health')).status).toBe(200);
  }, 30_000);
});
