/**
 * One HTTP request over node:http, which (unlike fetch) sends any method with a body: TRACE,
 * PROPFIND, CONNECT, names the parser does not know. CONNECT's answer arrives on the `connect` event.
 */
import { request, type IncomingMessage } from 'node:http';

export interface RawAnswer {
  status: number;
  allow?: string;
  body: string;
}

export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const r = request({
      host: url.hostname,
      port: url.port,
      method,
      path,
      agent: false,
      headers: {
        ...headers,
        ...(body !== undefined
          ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
          : {}),
      },
    });
    const answer = (res: IncomingMessage, stream: NodeJS.ReadableStream, head?: Buffer) => {
      // A CONNECT's body, as far as the parser read it with the headers, comes as `head`.
      let text = head?.toString('utf8') ?? '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: text }));
    };
    r.on('response', (res) => answer(res, res));
    r.on('connect', (res, socket, head) => answer(res, socket, head));
    r.on('error', reject);
    r.end(body);
  });
}
