/**
 * Requests Node's HTTP parser refuses before any route sees them (a method name it does not know, a
 * malformed request line or header, headers too large, a request too slow to arrive): answered on the
 * socket in the API's error shape, then the socket is left for the client to close, for a moment
 * (refuseOnSocket: what it still sends is read and dropped). Node's own answer destroys the socket at
 * once: on Node 24 a client still sending its body then reads ECONNRESET instead of the answer (an
 * unknown method with a 1.5 MB body: 20 of 20 reset on Node 24.21, 0 on Node 20; with this handler 0 on
 * both; the fuzz test found it).
 */
import type { Duplex } from 'node:stream';
import { refuseOnSocket } from './upgrade.ts';

/** Sockets already answered: the parser reports its error again for every further chunk it reads. */
const answered = new WeakSet<Duplex>();

export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') refuseOnSocket(socket, 431, 'The request headers are too large.');
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') refuseOnSocket(socket, 408, 'The request took too long to arrive.');
  else if (err.code === 'HPE_INVALID_METHOD')
    refuseOnSocket(
      socket,
      400,
      'Unknown HTTP method: this server serves GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS.',
    );
  else refuseOnSocket(socket, 400, 'Malformed HTTP request.');
}
