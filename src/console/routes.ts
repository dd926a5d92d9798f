/**
 * The console (docs/console.md): the web page at `/`, built by `npm run build` from console/ into
 * dist/console. The page and its assets are public, like any login page: they hold no data. Every
 * request the page makes for data goes to the API with the signed-in key, behind the same auth.
 *   GET /               index.html (no-cache: a new build is picked up on the next load)
 *   GET /assets/*       content-hashed bundles (cached for a year), gzip when the browser takes it
 * Without a build (a checkout running from src/ under tsx), `/` says how to make one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { PACKAGE_ROOT } from '../package-root.ts';

/** Where `npm run build` puts the console (bin/build.js). */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console');

/** What the auth middleware lets through without a key: the page and its assets, never data. */
export const CONSOLE_PUBLIC_PATHS = ['/', '/index.html', '/favicon.svg', '/assets/*'];

/**
 * The page talks only to its own origin; React Flow positions nodes with inline styles, so style
 * attributes are allowed (no inline script is).
 */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
  crossOriginEmbedderPolicy: false,
  // Parley on plain HTTP (localhost) must not pin a whole domain to HTTPS; a TLS proxy in front sets its own.
  strictTransportSecurity: false,
});

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Parley</title>
<p>The Parley console is not built. Run <code>npm run build</code> (or <code>npm start</code>, which builds when needed) and reload.</p>
<p>The API is up: see <a href="/health">/health</a>.</p>`;

/** The static handlers for a built console (made once it exists: a build may land while the server runs). */
function staticHandlers(dir: string) {
  return {
    page: serveStatic({
      root: dir,
      path: 'index.html',
      onFound: (_path, c) => c.header('Cache-Control', 'no-cache'),
    }),
    file: serveStatic({ root: dir }),
    asset: serveStatic({
      root: dir,
      precompressed: true,
      onFound: (_path, c) => c.header('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  };
}

/** Whether `npm run build` has built the console (said in the start-up log). */
export const consoleBuilt = (dir: string = CONSOLE_DIR) => existsSync(join(dir, 'index.html'));

export function consoleRoutes(dir: string = CONSOLE_DIR): Hono {
  const app = new Hono();
  app.use('/', pageHeaders);
  app.use('/index.html', pageHeaders);
  let handlers: ReturnType<typeof staticHandlers> | undefined;
  const built = () => (handlers ??= consoleBuilt(dir) ? staticHandlers(dir) : undefined);
  app.get('/', async (c, next) => {
    const h = built();
    if (!h) return c.html(NOT_BUILT, 503);
    return h.page(c, next);
  });
  app.get('/index.html', async (c, next) => {
    const h = built();
    return h ? h.page(c, next) : next();
  });
  app.get('/favicon.svg', async (c, next) => {
    const h = built();
    return h ? h.file(c, next) : next();
  });
  app.get('/assets/*', async (c, next) => {
    const h = built();
    return h ? h.asset(c, next) : next();
  });
  return app;
}
