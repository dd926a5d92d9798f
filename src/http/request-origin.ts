/**
 * Who may address Parley: the Host a request names and the Origin of the page that sent it.
 *
 * - Host (DNS-rebinding protection): bound to a loopback address, only localhost, 127.0.0.1 and [::1]
 *   (any port) and the PARLEY_ALLOWED_HOSTS names are accepted. Bound to any other address the public
 *   name is unknown, so any Host is accepted unless PARLEY_ALLOWED_HOSTS is set (then the loopback
 *   names and the listed ones).
 * - Origin (cross-site requests): a request without one (curl, SDK clients) passes; one from the
 *   server's own origin (same host and port as the Host it names) passes; one listed in
 *   PARLEY_ALLOWED_ORIGINS passes with CORS; any other is refused. Browsers always send Origin on
 *   cross-origin fetches and on WebSocket upgrades, so no other page can drive Parley.
 * The same check serves Hono routes (originGuard) and the WebSocket upgrade (checkUpgrade).
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { jsonError } from './errors.ts';

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(bindHost: string): boolean {
  const host = bindHost.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export interface OriginPolicy {
  /** The address the server binds (PARLEY_HOST). */
  bindHost: string;
  /** Extra host names (PARLEY_ALLOWED_HOSTS), lower case, without port. */
  allowedHosts: string[];
  /** Browser origins allowed cross-origin (PARLEY_ALLOWED_ORIGINS), as URL.origin spells them. */
  allowedOrigins: string[];
}

/** What a request's headers say: refused (with the reason), or allowed and whether CORS applies. */
export type Verdict = { ok: false; message: string } | { ok: true; cors: boolean };

/** A Host header value as a URL (for hostname and port); undefined when it is not a bare host[:port]. */
function parseHost(host: string): URL | undefined {
  if (!URL.canParse(`http://${host}`)) return undefined;
  const url = new URL(`http://${host}`);
  return url.username || url.password || url.pathname !== '/' || url.search || url.hash ? undefined : url;
}

const defaultPort = (protocol: string) => (protocol === 'https:' || protocol === 'wss:' ? '443' : '80');

export function originPolicy(policy: OriginPolicy): (host: string | undefined, origin: string | undefined) => Verdict {
  const anyHost = !isLoopback(policy.bindHost) && policy.allowedHosts.length === 0;
  const hosts = new Set([...LOOPBACK_NAMES, ...policy.allowedHosts]);
  const listed = new Set(policy.allowedOrigins);
  return (host, origin) => {
    const named = host === undefined ? undefined : parseHost(host);
    if (!named) return { ok: false, message: 'Missing or malformed Host header.' };
    if (!anyHost && !hosts.has(named.hostname)) {
      return {
        ok: false,
        message: `Host "${named.hostname}" is not allowed; add it to PARLEY_ALLOWED_HOSTS if this server is reached by that name.`,
      };
    }
    if (origin === undefined) return { ok: true, cors: false };
    if (listed.has(origin)) return { ok: true, cors: true };
    const from = URL.canParse(origin) ? new URL(origin) : undefined;
    // The server's own pages: same host and port as the Host the request names (either scheme: a TLS proxy may sit in front).
    const own =
      from &&
      /^https?:$/.test(from.protocol) &&
      from.hostname === named.hostname &&
      (from.port || defaultPort(from.protocol)) === (named.port || defaultPort(from.protocol));
    if (own) return { ok: true, cors: false };
    return {
      ok: false,
      message: `Origin "${origin}" is not allowed; list it in PARLEY_ALLOWED_ORIGINS to let that page call Parley.`,
    };
  };
}

/** Request headers browser clients of Parley's protocols send (MCP, ACP, A2A, AG-UI, SSE resume, tracing). */
const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Last-Event-ID',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Acp-Connection-Id',
  'Acp-Session-Id',
  'A2A-Version',
  'A2A-Extensions',
  'X-A2A-Extensions',
  'X-Routing-Mode',
  'traceparent',
  'tracestate',
];
/** Response headers those clients read. */
const CORS_EXPOSE_HEADERS = [
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Acp-Connection-Id',
  'Acp-Session-Id',
  'A2A-Version',
  'A2A-Extensions',
  'X-A2A-Extensions',
  'X-Parley-Run-Id',
  'Retry-After',
  'WWW-Authenticate',
  'ETag',
];

/**
 * Refuses (403) a foreign Host or Origin before any other middleware runs; answers CORS, preflights
 * included, for the listed origins.
 */
export function originGuard(policy: OriginPolicy): MiddlewareHandler {
  const verdictOf = originPolicy(policy);
  const withCors = cors({
    origin: policy.allowedOrigins,
    allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  });
  return async (c, next) => {
    const verdict = verdictOf(c.req.header('host'), c.req.header('origin'));
    if (!verdict.ok) return jsonError(c, 403, verdict.message);
    return verdict.cors ? withCors(c, next) : next();
  };
}
