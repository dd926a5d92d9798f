/**
 * How the server serves the console (src/console/routes.ts) with API keys on: the page and its assets
 * without a key (they hold no data), every API behind the key as before, a strict CSP, long caching of
 * the hashed assets with their gzip twins, and a clear page when the console was never built.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIR, consoleRoutes } from '../../src/console/routes.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.ts';
import { startShippedParley, type ShippedParley } from '../support/server.ts';

const KEY = 'console-http-key';
let server: ShippedParley;

beforeAll(async () => {
  ensureBuilt();
  server = await startShippedParley({ PARLEY_API_KEYS: KEY });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
});

const entryScript = () =>
  /src="\/(assets\/[^"]+\.js)"/.exec(readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8'))![1]!;

describe('the console page', () => {
  it('is served at / without a key, with a CSP that allows only its own origin', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('strict-transport-security')).toBeNull();
    expect(await res.text()).toContain('<div id="root">');
  });

  it('serves hashed assets cached for a year, gzipped for a browser that takes it', async () => {
    const path = entryScript();
    const plain = await fetch(`${server.url}/${path}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toContain('javascript');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = await plain.arrayBuffer();
    // fetch decodes gzip itself: the encoding header and the same bytes show it was sent compressed.
    const zipped = await fetch(`${server.url}/${path}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect((await zipped.arrayBuffer()).byteLength).toBe(body.byteLength);

    const missing = await fetch(`${server.url}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(`${server.url}/assets/..%2Fconsole%2Findex.html`)).status).toBe(404);
  });

  it('keeps every API behind the key, and a foreign Origin refused, as before', async () => {
    expect((await fetch(`${server.url}/api/runs`)).status).toBe(401);
    expect((await fetch(`${server.url}/mcp/servers`)).status).toBe(401);
    // Issue 44 §1: a method the path does not serve is a 405 naming the ones it does.
    const post = await fetch(`${server.url}/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toMatch(/\bGET\b/);
    const foreign = await fetch(`${server.url}/`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const servers = await fetch(`${server.url}/mcp/servers`, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await servers.json()) as { servers: { server: string; breaker: string }[] };
    expect(body.servers.map((s) => s.server).sort()).toEqual(['filesystem', 'memory']);
    expect(body.servers.every((s) => ['closed', 'open', 'half-open'].includes(s.breaker))).toBe(true);
  });
});

describe('without a build', () => {
  it('says how to build the console, and the API is unaffected', async () => {
    const app = consoleRoutes(join(server.dataDir, 'no-console-here'));
    const res = await app.request('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
    expect((await app.request('/assets/index.js')).status).toBe(404);
  });
});
