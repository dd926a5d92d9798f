/**
 * The HTTP app: middleware every route gets, in this order: Host/Origin check with CORS for the listed
 * origins (before anything else), auth, 405 for a method the path does not serve, body limit, the JSON
 * body check, trace context; JSON errors and 404; the built-in /health and /ready, and the route groups the composition root mounts.
 */
import { acceptTraceContext } from './trace-context.ts';
import { Hono } from 'hono';
import type { Logger } from '../log.ts';
import { apiKeyAuth, type ParleyEnv } from './auth.ts';
import { DEFAULT_JSON_MAX_DEPTH, jsonBodies, limitBody } from './body.ts';
import { errorHandler, notFound } from './errors.ts';
import { refuseUnservedMethods } from './methods.ts';
import { originGuard, type OriginPolicy } from './request-origin.ts';

/** Where the JSON-RPC protocols are mounted: a refused body gets a JSON-RPC error there. */
export const JSON_RPC_PATHS = ['/mcp', '/acp', '/a2a'];

/** Where routes check JSON bodies themselves, to answer a bad one in their protocol's shape: A2A's REST binding. */
export const SELF_CHECKED_BODY_PREFIXES = ['/a2a/rest/'];

/** JSON-RPC paths whose route refuses a body that is not JSON-typed in its own terms: A2A's -32005. */
export const OWN_CONTENT_TYPE_PATHS = ['/a2a'];

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
  /** Who may address the server (default: bound to 127.0.0.1, no extra hosts or origins). */
  origins?: OriginPolicy;
  /** Deepest JSON nesting accepted in a body (default 64). */
  jsonMaxDepth?: number;
  /** The local service token (auth.ts): authenticates as the local caller when keys are configured. */
  localToken?: string;
}

export function createHttpApp(options: HttpAppOptions): Hono<ParleyEnv> {
  const app = new Hono<ParleyEnv>();
  app.onError(errorHandler(options.logger));
  app.notFound(notFound);
  app.use('*', originGuard(options.origins ?? { bindHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [] }));
  // Parley takes bearer keys, not OAuth: MCP clients that probe OAuth discovery get a plain 404, even
  // with auth on, and fall back to the Authorization header they were given (MCP clients also try
  // OpenID Connect discovery, under the root and under a path).
  app.all('/.well-known/oauth-*', notFound);
  app.all('/.well-known/openid-configuration', notFound);
  app.all('/.well-known/openid-configuration/*', notFound);
  app.all('*/.well-known/openid-configuration', notFound);
  app.use(
    '*',
    apiKeyAuth({
      keys: options.apiKeys,
      adminKeys: options.adminKeys,
      publicPaths: ['/health', ...(options.publicPaths ?? [])],
      localToken: options.localToken,
    }),
  );
  // Before anything reads a body: a method the path does not serve is a 405 with Allow (TRACE with a body too).
  app.use('*', refuseUnservedMethods(app, JSON_RPC_PATHS, options.bodyLimitBytes));
  app.use('*', limitBody(options.bodyLimitBytes));
  app.use(
    '*',
    jsonBodies({
      maxDepth: options.jsonMaxDepth ?? DEFAULT_JSON_MAX_DEPTH,
      jsonRpcPaths: JSON_RPC_PATHS,
      selfCheckedPrefixes: SELF_CHECKED_BODY_PREFIXES,
      ownContentTypePaths: OWN_CONTENT_TYPE_PATHS,
    }),
  );
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
