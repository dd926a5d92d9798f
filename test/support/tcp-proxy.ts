/**
 * A TCP proxy on 127.0.0.1 that a test can cut: one process's connection to a server (a replica's to
 * Redis) fails while everyone else's keeps working — a network partition of that process alone.
 * cut() drops every connection and refuses new ones until mend().
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** host:port of the proxy. */
  port: number;
  cut(): void;
  mend(): void;
  close(): Promise<void>;
}

export function tcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (!open) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        port,
        cut() {
          open = false;
          for (const socket of sockets) socket.destroy();
        },
        mend() {
          open = true;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    }),
  );
}
