/**
 * The HTTP app: middleware every route gets (body limit, auth, JSON errors, 404), the built-in
 * /health and /ready, and the route groups the composition root mounts.
 */
import { acceptTraceContext } from './trace-context.ts';
import { Hono } from 'hono';
import type { Logger } from '../log.ts';
import { apiKeyAuth, type ParleyEnv } from './auth.ts';
import { limitBody } from './body.ts';
import { errorHandler, notFound } from './errors.ts';

/** A group of routes mounted under a path prefix ("/" for top-level routes such as /v1/…). */
export interface RouteGroup {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- sub-apps bring their own Env types
  app: Hono<any, any, any>;
}

export interface ReadinessCheck {
  name: string;
  /** True when ready; a string explains why not. */
  check(): boolean | string | Promise<boolean | string>;
}

export interface HttpAppOptions {
  version: string;
  apiKeys: string[];
  /** PARLEY_ADMIN_KEYS: keys whose caller sees every caller's runs and approvals. */
  adminKeys?: string[];
  bodyLimitBytes: number;
  logger: Logger;
  routes: RouteGroup[];
  readiness: ReadinessCheck[];
  publicPaths?: string[];
}

export function createHttpApp(options: HttpAppOptions): Hono<ParleyEnv> {
  const app = new Hono<ParleyEnv>();
  app.onError(errorHandler(options.logger));
  app.notFound(notFound);
  app.use('*', apiKeyAuth({ keys: options.apiKeys, adminKeys: options.adminKeys, publicPaths: ['/health', ...(options.publicPaths ?? [])] }));
  app.use('*', limitBody(options.bodyLimitBytes));
  app.use('*', acceptTraceContext());

  app.get('/health', (c) => c.json({ status: 'ok', version: options.version }));
  app.get('/ready', async (c) => {
    const checks: Record<string, string> = {};
    for (const r of options.readiness) {
      try {
        const result = await r.check();
        checks[r.name] = result === true ? 'ok' : result === false ? 'not ready' : result;
      } catch (err) {
        checks[r.name] = err instanceof Error ? err.message : String(err);
      }
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    return c.json({ ready, checks }, ready ? 200 : 503);
  });

  for (const group of options.routes) app.route(group.path, group.app);
  return app;
}
