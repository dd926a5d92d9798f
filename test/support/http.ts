/** Serves a Hono app on 127.0.0.1 on a free port for tests; returns its base URL and a closer. */
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { createHttpApp, type RouteGroup } from '../../src/http/app.ts';
import { silentLogger } from '../../src/log.ts';

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export function listen(app: Hono): Promise<TestServer> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            if ('closeAllConnections' in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * Route groups behind the real app middleware (Host/Origin, auth, body limit, JSON body checks,
 * errors), served on 127.0.0.1: what a protocol test needs without the whole composition root.
 */
export function serveRoutes(
  routes: RouteGroup[],
  options: { apiKeys?: string[]; bodyLimitBytes?: number } = {},
): Promise<TestServer> {
  const app = createHttpApp({
    version: 'test',
    apiKeys: options.apiKeys ?? [],
    bodyLimitBytes: options.bodyLimitBytes ?? 256 * 1024,
    logger: silentLogger,
    readiness: [],
    routes,
  });
  return listen(app as unknown as Hono);
}
