/**
 * Refusing a WebSocket upgrade (or a CONNECT, or a request Node's parser refused: client-error.ts): these
 * reach the Node server's `upgrade`, `connect` and `clientError` events, never Hono, so the refusal is
 * written on the raw socket, in the API's error shape.
 */
import type { Duplex } from 'node:stream';
import { ERROR_CODES, errorBody } from './errors.ts';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** How long a refused upgrade's or CONNECT's socket stays open for a client that does not close it. */
export const REFUSED_SOCKET_LINGER_MS = 2_000;

export function refuseOnSocket(
  socket: Duplex,
  status: 400 | 401 | 403 | 404 | 405 | 408 | 429 | 431 | 503,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(errorBody(ERROR_CODES[status], message));
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  // The socket of an upgrade or a CONNECT is handed over paused, and the HTTP server no longer tracks it:
  // unread, the client's end of it is never seen, so it stayed open after the client went (a descriptor
  // per refusal, and the server's close waited on it for good). Read and drop what the client still
  // sends, so its end closes the socket; one whose client keeps it open is cut after a moment.
  socket.resume();
  setTimeout(() => socket.destroy(), REFUSED_SOCKET_LINGER_MS).unref();
}

export const refuseUpgrade = refuseOnSocket;
