/**
 * The properties every fuzzed request must satisfy (issue 12 §6), and the few answers issue 12 §2
 * fixes for requests a web page could send. Each broken property is a Violation with a signature:
 * the same signature twice is the same failure, reported once.
 */
import type { Endpoint } from './endpoints.ts';
import { isOAuthDiscovery } from './endpoints.ts';
import { FOREIGN_HOSTS, FOREIGN_ORIGINS, SIMPLE_CONTENT_TYPES, UNKNOWN_METHODS, UNSERVED_METHODS } from './request.ts';
import type { Outcome } from './send.ts';
import { encode, resolve, type FuzzRequest, type Placeholders } from './wire.ts';

export interface Violation {
  check: string;
  detail: string;
}

/** What must never reach a client: stack frames, file paths, JavaScript internals. */
export const LEAKS: { name: string; pattern: RegExp }[] = [
  { name: 'stack frame', pattern: / {4}at /g },
  { name: '/work/ path', pattern: /\/work\//g },
  { name: 'node_modules', pattern: /node_modules/g },
  { name: '.ts: location', pattern: /\.ts:/g },
  { name: 'file:// URL', pattern: /file:\/\//g },
  // The server's own folder, wherever it is checked out (CI runners do not use /work/).
  { name: 'server folder path', pattern: new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') },
  {
    name: 'JS internals',
    pattern:
      /is not a function|Cannot read propert(?:y|ies) of|Cannot set propert(?:y|ies) of|is not iterable|Maximum call stack size exceeded|Cannot convert undefined or null/g,
  },
];

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/** The text of a request as sent, so a response that only echoes the request is not a leak. */
function sentText(req: FuzzRequest, values: Placeholders): string {
  const parts = [resolve(req.path, values), ...Object.values(req.headers).map((v) => resolve(v, values))];
  if (req.body) parts.push(encode(req.body, values).toString('utf8'));
  for (const f of req.frames ?? []) parts.push(JSON.stringify(f));
  return parts.join('\n');
}

const hasValidKey = (req: FuzzRequest) =>
  req.headers.authorization === 'Bearer <key>' || req.headers.authorization === 'Bearer <other-key>';
const foreignHost = (req: FuzzRequest) => req.headers.host !== undefined && FOREIGN_HOSTS.includes(req.headers.host);
const foreignOrigin = (req: FuzzRequest) =>
  req.headers.origin !== undefined && FOREIGN_ORIGINS.includes(req.headers.origin);

/** A JSON-RPC "Internal error": the protocol's 500. */
const JSON_RPC_INTERNAL = /"code"\s*:\s*-32603\b/;

export interface CheckInput {
  endpoint: Endpoint;
  request: FuzzRequest;
  outcome: Outcome;
  /** Runs the engine holds now minus before the request. */
  runsCreated: number;
  values: Placeholders;
}

export function violations({ endpoint, request: req, outcome: out, runsCreated, values }: CheckInput): Violation[] {
  const found: Violation[] = [];
  const status = out.status;

  // §6: no 5xx (nor the JSON-RPC equivalent), an answer to every request, no crash of the connection.
  if (status === 'error' || status === 'timeout')
    found.push({ check: 'answered', detail: `${status}: ${out.detail ?? ''}` });
  else if (status >= 500) found.push({ check: 'no-5xx', detail: String(status) });
  if (JSON_RPC_INTERNAL.test(out.body)) found.push({ check: 'no-5xx', detail: 'JSON-RPC -32603 internal error' });
  if (out.detail?.startsWith('closed by the server: 1006') || out.detail?.startsWith('closed by the server: 1011')) {
    found.push({ check: 'answered', detail: `WebSocket ${out.detail}` });
  }

  // §6: no stack trace, file path or JavaScript internals in anything sent back (unless the request carried it).
  const sent = sentText(req, values);
  for (const leak of LEAKS) {
    if (count(out.body, leak.pattern) > count(sent, leak.pattern))
      found.push({ check: 'no-internals', detail: leak.name });
  }

  // §6: no run created.
  if (runsCreated > 0) found.push({ check: 'no-run', detail: `${runsCreated} run(s) started` });

  if (typeof status !== 'number') return found;

  // §2: a foreign Host is refused on every route (DNS rebinding); a foreign Origin gets 403.
  if (foreignHost(req) && (status < 400 || status >= 500) && status !== 101)
    found.push({ check: 'host-refused', detail: `foreign Host answered ${status}` });
  if (req.frames && foreignHost(req) && status === 101)
    found.push({ check: 'host-refused', detail: 'foreign Host upgraded to a WebSocket' });
  // (A method name the parser does not know never reaches the server: the parser's 400.)
  if (
    foreignOrigin(req) &&
    !foreignHost(req) &&
    hasValidKey(req) &&
    status !== 403 &&
    !UNKNOWN_METHODS.includes(req.method)
  )
    found.push({ check: 'origin-refused', detail: `foreign Origin answered ${status}` });

  // §2: a JSON route refuses the content types a page can send without a preflight.
  const simpleType = req.body && SIMPLE_CONTENT_TYPES.includes(req.headers['content-type'] ?? '');
  const cleanCaller = hasValidKey(req) && !foreignHost(req) && !foreignOrigin(req);
  if (endpoint.json && simpleType && cleanCaller && endpoint.methods.includes(req.method)) {
    const refused =
      status === 415 ||
      ((endpoint.protocol === 'a2a' || endpoint.protocol === 'mcp' || endpoint.protocol === 'acp') &&
        status !== 413 &&
        /"error"/.test(out.body) &&
        status < 300);
    if (!refused && status !== 413)
      found.push({ check: 'json-only', detail: `${req.headers['content-type']} answered ${status}` });
  }

  // Issue 44 §1: a method no route serves is a 405 with Allow (404 where no route serves the path at all),
  // with a body or without; a method name Node's parser does not know is its 400. Never read, never a 5xx.
  if (cleanCaller && !req.frames && UNSERVED_METHODS.includes(req.method)) {
    // A generated id such as ".." can take the request to a path no route serves: 404 there.
    const noRoute = status === 404 && /No route for /.test(out.body);
    if (status !== 405 && !noRoute) found.push({ check: 'method-405', detail: `${req.method} answered ${status}` });
    else if (status === 405 && (!out.allow || out.allow.split(', ').includes(req.method)))
      found.push({ check: 'method-405', detail: `${req.method} 405 with Allow ${out.allow ?? '(none)'}` });
  }
  if (!req.frames && UNKNOWN_METHODS.includes(req.method) && status !== 400)
    found.push({ check: 'method-405', detail: `unknown method ${req.method} answered ${status}` });

  // §2: the OAuth discovery paths answer 404, so MCP clients fall back to the bearer header.
  if (
    endpoint.id === 'no route' &&
    isOAuthDiscovery(req.path) &&
    req.method === 'GET' &&
    !foreignHost(req) &&
    !foreignOrigin(req) &&
    (hasValidKey(req) || req.headers.authorization === undefined) &&
    status !== 404
  ) {
    found.push({ check: 'oauth-404', detail: `answered ${status}` });
  }

  // Errors come in the protocol's own JSON shape: an "error" object with a message. (ACP's HTTP
  // transport is the SDK's, whose own errors are plain text: the JSON-RPC errors inside a connection are checked above.)
  if (endpoint.protocol !== 'acp' && status >= 400 && status < 500 && out.body.trim() !== '' && req.method !== 'HEAD') {
    let shaped = false;
    try {
      const parsed = JSON.parse(out.body) as { error?: { message?: unknown } };
      shaped = typeof parsed?.error?.message === 'string';
    } catch {
      shaped = false;
    }
    if (!shaped) found.push({ check: 'error-shape', detail: `${status} ${out.contentType || 'no content type'}` });
  }
  return found;
}

/** Same failure, same signature: the endpoint, the property, what it saw, and why the request was invalid. */
export function signature(endpoint: Endpoint, req: FuzzRequest, v: Violation): string {
  // What the request carried tells failures of its content apart; a header rule fails the same way whatever the body.
  if (['answered', 'no-5xx', 'no-internals', 'no-run'].includes(v.check))
    return `${endpoint.id} | ${v.check}: ${v.detail.replace(/\d{4,}/g, 'N').slice(0, 60)} | ${req.why}`;
  if (v.check === 'error-shape') return `${endpoint.id} | ${v.check}: ${v.detail.replace(/^\d+ /, '')}`;
  return `${endpoint.id} | ${v.check}`;
}
