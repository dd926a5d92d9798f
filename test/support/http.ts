/** Serves a Hono app on 127.0.0.1 on a free port for tests; returns its base URL and a closer. */
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

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
