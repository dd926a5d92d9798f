/** The HTTP app built by the composition root, over real HTTP on 127.0.0.1. */
import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { readJson } from '../../../src/http/body.ts';
import { createLogger } from '../../../src/log.ts';
import { createParley, VERSION, type Parley } from '../../../src/server.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';

const open: Parley[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

/** Probe routes: a JSON echo through readJson, one through c.req.json(), one that throws, one that is slow. */
function probes(): Hono {
  const app = new Hono();
  app.post('/echo', async (c) => c.json({ got: await readJson(c) }));
  app.post('/raw', async (c) => c.json({ got: await c.req.json() }));
  app.get('/boom', () => {
    throw new Error('secret internal detail');
  });
  app.get('/slow', async (c) => {
    await new Promise((r) => setTimeout(r, Number(c.req.query('ms') ?? 200)));
    return c.json({ done: true });
  });
  return app;
}

async function start(env: Record<string, string> = {}) {
  const lines: string[] = [];
  // The graph in memory and no MCP servers: these tests are about HTTP, and each server needs its own store.
  const config = loadConfig({
    PARLEY_PORT: '0',
    PARLEY_BODY_LIMIT_BYTES: '1024',
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
    ...env,
  });
  const parley = await createParley(config, {
    logger: createLogger('info', (l) => lines.push(l)),
    routes: [{ path: '/probe', app: probes() }],
    telemetry: false,
  });
  open.push(parley);
  const { url } = await parley.listen();
  return { parley, url, lines };
}

/**
 * Writes `first` (head and body) then, once it is all sent, `next` on one TCP connection, as a
 * keep-alive client does; the status codes of the answers that came before the server closed it.
 */
function onOneConnection(port: number, first: (string | Buffer)[], next: string): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answers = '';
    socket.on('data', (d: Buffer) => (answers += d.toString('latin1')));
    socket.on('error', () => undefined); // a reset shows as a missing answer
    socket.on('close', () => {
      clearTimeout(timer);
      resolve([...answers.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]!));
    });
    const timer = setTimeout(() => socket.destroy(), 5_000);
    for (const part of first.slice(0, -1)) socket.write(part);
    socket.write(first.at(-1)!, () => setTimeout(() => socket.write(next), 200));
  });
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
  expect(body.error.message).not.toMatch(/\bat .*\.ts:\d+/);
  return body;
}

describe('health and readiness', () => {
  it('GET /health is 200 with the version; /ready reports the scripted model', async () => {
    const { url } = await start();
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', version: VERSION });
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      checks: { 'scripted-model': 'ok', 'knowledge-store': 'ok', 'run-store': 'ok' },
    });
  });

  it('logs exactly one line saying answers are scripted and how to configure a real model', async () => {
    const { lines } = await start();
    const scripted = lines.filter((l) => l.includes('SCRIPTED'));
    expect(scripted).toHaveLength(1);
    expect(scripted[0]).toMatch(/PARLEY_MODEL_API_KEY/);
  });
});

describe('auth', () => {
  it('is off without keys, and says so once', async () => {
    const { url, lines } = await start();
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(lines.filter((l) => l.includes('auth is off'))).toHaveLength(1);
  });

  it('with keys: 401 without a key or with a wrong one, 200 with a right one; /health stays open', async () => {
    const { url, lines } = await start({ PARLEY_API_KEYS: 'alpha-key, beta-key' });
    expect(lines.some((l) => l.includes('auth is off'))).toBe(false);
    const missing = await fetch(`${url}/ready`);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectError(missing, 401, 'unauthorized');
    await expectError(
      await fetch(`${url}/ready`, { headers: { authorization: 'Bearer wrong-key' } }),
      401,
      'unauthorized',
    );
    expect((await fetch(`${url}/ready`, { headers: { authorization: 'Bearer beta-key' } })).status).toBe(200);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // Unknown routes are not revealed to callers without a key.
    await expectError(await fetch(`${url}/nowhere`), 401, 'unauthorized');
  });
});

describe('errors in one JSON shape', () => {
  it('an unknown route is a 404 JSON error', async () => {
    const { url } = await start();
    await expectError(await fetch(`${url}/does/not/exist`), 404, 'not_found');
  });

  it('a body over the limit is a 413', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(2000) }),
    });
    await expectError(res, 413, 'payload_too_large');
    const small = await fetch(`${url}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(await small.json()).toEqual({ got: { a: 1 } });
  });

  it('a chunked body over the limit (no Content-Length) is a 413 too', async () => {
    const { url } = await start();
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(500)));
        controller.close();
      },
    });
    const res = await fetch(`${url}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413, 'payload_too_large');
  });

  it('a large body answered early (401, 413) is drained: the keep-alive connection answers the next request', async () => {
    const { url } = await start({ PARLEY_API_KEYS: 'alpha-key' });
    const { port } = new URL(url);
    for (const size of [100_000, 1_000_000]) {
      for (const [auth, status] of [
        ['', '401'],
        ['Authorization: Bearer alpha-key\r\n', '413'],
      ] as const) {
        const head = `POST /probe/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n${auth}\r\n`;
        const next = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
        const statuses = await onOneConnection(Number(port), [head, Buffer.alloc(size, 'a')], next);
        expect(statuses, `${size} bytes, ${status}`).toEqual([status, '200']);
      }
    }
  });

  it('malformed JSON is a 400, through readJson and through c.req.json()', async () => {
    const { url } = await start();
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": ' };
    await expectError(await fetch(`${url}/probe/echo`, init), 400, 'invalid_json');
    await expectError(await fetch(`${url}/probe/raw`, init), 400, 'invalid_json');
  });

  it('a non-JSON content type is a 415', async () => {
    const { url } = await start();
    await expectError(
      await fetch(`${url}/probe/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }),
      415,
      'unsupported_media_type',
    );
  });

  it('an unexpected error is a 500 without its details, which go to the log', async () => {
    const { url, lines } = await start();
    const body = await expectError(await fetch(`${url}/probe/boom`), 500, 'internal_error');
    expect(body.error.message).not.toContain('secret internal detail');
    expect(lines.some((l) => l.includes('secret internal detail'))).toBe(true);
  });
});

describe('shutdown', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    const { parley, url } = await start();
    const inflight = fetch(`${url}/probe/slow?ms=200`);
    await new Promise((r) => setTimeout(r, 50));
    const closed = parley.close();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('cuts requests still open after PARLEY_SHUTDOWN_TIMEOUT_MS', async () => {
    const { parley, url } = await start({ PARLEY_SHUTDOWN_TIMEOUT_MS: '150' });
    const inflight = fetch(`${url}/probe/slow?ms=5000`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await parley.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await inflight).toBe('cut');
  });
});
