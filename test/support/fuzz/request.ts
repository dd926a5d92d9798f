/**
 * A whole request for one endpoint row: the row's near-valid shape plus the decorations every
 * route gets — a wrong method now and then, malformed or missing Authorization, a foreign Host or
 * Origin, a wrong content type, an encoding error, junk in the headers routes read.
 */
import fc from 'fast-check';
import type { Endpoint, Shape } from './endpoints.ts';
import type { Encoding, FuzzRequest } from './wire.ts';

export const FOREIGN_HOSTS = [
  'evil.example',
  'evil.example:8787',
  'localhost.evil.example',
  '127.0.0.1.nip.io',
  'attacker.test:80',
];
export const FOREIGN_ORIGINS = [
  'http://evil.example',
  'https://attacker.test',
  'null',
  'http://localhost.evil.example:8787',
  'chrome-extension://abcdefghijklmnop',
];
/** The content types a web page can send without a CORS preflight: a JSON route must refuse them (415). */
export const SIMPLE_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
/**
 * Methods no Parley route serves, sent with the row's body (issue 44 §1: TRACE with a body was a 500):
 * ones Node's parser knows (a 405 with Allow), CONNECT (Node's `connect` event), and a name it does not (its 400).
 */
export const UNSERVED_METHODS = ['TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'CONNECT'];
export const UNKNOWN_METHODS = ['FROBNICATE', 'BREW'];

/** Header values Node's client can send (visible ASCII and Latin-1, no control characters). */
const headerText = fc.stringMatching(/^[ -~\u00a0-\u00ff]{0,60}$/);

const authorization = fc.oneof(
  { arbitrary: fc.constant('Bearer <key>'), weight: 16 },
  { arbitrary: fc.constant('Bearer <other-key>'), weight: 2 },
  fc.constantFrom(
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'Bearer wrong-key',
    'bearer <key>',
    'Bearer <key> extra',
    'Bearer <key>,<other-key>',
    'Token <key>',
    `Bearer ${'k'.repeat(8192)}`,
  ),
  headerText.map((t) => `Bearer ${t}`),
);

const host = fc.oneof({ arbitrary: fc.constant(undefined), weight: 18 }, fc.constantFrom(...FOREIGN_HOSTS));
const origin = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 16 },
  fc.constantFrom(...FOREIGN_ORIGINS),
  fc.constant('<own-origin>'),
);

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 16 },
  fc.constantFrom(...SIMPLE_CONTENT_TYPES),
  fc.constantFrom(
    undefined,
    'application/jsonx',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'APPLICATION/JSON',
    'application/merge-patch+json',
    '*/*',
    'text/event-stream',
  ),
);

const encoding = fc.oneof(
  { arbitrary: fc.constant<Encoding>('utf8'), weight: 12 },
  fc.constantFrom<Encoding>('bom', 'wtf8', 'latin1'),
);

/** Headers some routes read, with junk values now and then. */
const extraHeaders = fc.record(
  {
    'last-event-id': headerText,
    traceparent: fc.oneof(headerText, fc.constant('00-00000000000000000000000000000000-0000000000000000-00')),
    'x-parley-thread-id': headerText,
    'a2a-extensions': headerText,
    accept: fc.constantFrom('application/json', 'text/event-stream', 'application/vnd.ag-ui.event.proto', '*/*', 'x/y'),
  },
  { requiredKeys: [] },
);

export function requestFor(endpoint: Endpoint): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      shape: endpoint.near,
      method: fc.oneof(
        { arbitrary: fc.constantFrom(...endpoint.methods), weight: 12 },
        { arbitrary: fc.constantFrom(...METHODS), weight: 2 },
        fc.constantFrom(...UNSERVED_METHODS, ...UNKNOWN_METHODS),
      ),
      authorization,
      host,
      origin,
      contentType,
      encoding,
      extra: fc.oneof({ arbitrary: fc.constant({}), weight: 4 }, extraHeaders),
    })
    .map(({ shape, method, authorization: auth, host: h, origin: o, contentType: ct, encoding: enc, extra }) =>
      toRequest(endpoint, shape, { method, auth, host: h, origin: o, ct, enc, extra }),
    );
}

function toRequest(
  endpoint: Endpoint,
  shape: Shape,
  d: {
    method: string;
    auth?: string;
    host?: string;
    origin?: string;
    ct?: string;
    enc: Encoding;
    extra: Record<string, string>;
  },
): FuzzRequest {
  const headers: Record<string, string> = { ...d.extra, ...shape.headers };
  if (d.auth !== undefined) headers.authorization = d.auth;
  if (d.host !== undefined) headers.host = d.host;
  if (d.origin !== undefined) headers.origin = d.origin;
  const request: FuzzRequest = { endpoint: endpoint.id, method: d.method, path: shape.path, headers, why: shape.why };
  if (shape.frames) return { ...request, method: 'GET', frames: shape.frames };
  const canHaveBody = d.method !== 'GET' && d.method !== 'HEAD';
  if (shape.body && canHaveBody) {
    if (d.ct !== undefined) headers['content-type'] = d.ct;
    const enc = shape.encoding ?? d.enc;
    request.body =
      'json' in shape.body ? { json: shape.body.json, encoding: enc } : { text: shape.body.raw, encoding: enc };
  }
  return request;
}
