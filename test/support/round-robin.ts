/**
 * A round-robin HTTP proxy on 127.0.0.1 in front of several Parley replicas: each request goes to the
 * next one, as a plain load balancer without session affinity spreads them. For the replica tests and
 * bench:replicas (no vitest here).
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

/** Round-robin over the replicas: each request goes to the next one. */
export function roundRobin(upstreams: string[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', upstreams[next++ % upstreams.length]);
    const forward = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (up: IncomingMessage) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, server });
    }),
  );
}
