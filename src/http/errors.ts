/**
 * The one JSON error shape of Parley's HTTP API: { "error": { "code", "message" } }.
 * Handlers throw ApiError (or Hono's HTTPException); the app's onError turns anything thrown into
 * this shape, and an unexpected error into a 500 whose details stay in the log, never in the response.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../log.ts';
import { unavailableOf } from '../unavailable.ts';
import { answerableId } from './json-rpc-envelope.ts';

/** The JSON-RPC endpoints (app.ts JSON_RPC_PATHS; not imported from there: app.ts imports this file). */
const JSON_RPC_PREFIXES = ['/mcp', '/acp', '/a2a'];

export const ERROR_CODES = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'unavailable',
} as const satisfies Partial<Record<ContentfulStatusCode, string>>;

export interface ErrorBody {
  error: { code: string; message: string };
}

export const errorBody = (code: string, message: string): ErrorBody => ({ error: { code, message } });

/** An error meant for the client: its status, code and message are sent as is. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly code: string = ERROR_CODES[status as keyof typeof ERROR_CODES] ?? 'error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  code?: string,
  headers?: Record<string, string>,
): Response {
  return c.json(
    errorBody(code ?? ERROR_CODES[status as keyof typeof ERROR_CODES] ?? 'error', message),
    status,
    headers,
  );
}

export const notFound: NotFoundHandler = (c) => jsonError(c, 404, `No route for ${c.req.method} ${c.req.path}.`);

export function errorHandler(logger: Logger): ErrorHandler {
  return async (err, c) => {
    if (err instanceof ApiError) return jsonError(c, err.status, err.message, err.code, err.headers);
    if (err instanceof HTTPException) {
      const res = err.getResponse();
      // Middleware that already answers in our shape (auth, body limit) passes through untouched.
      if (res.headers.get('content-type')?.includes('application/json')) return res;
      const headers: Record<string, string> = {};
      const challenge = res.headers.get('www-authenticate');
      if (challenge) headers['www-authenticate'] = challenge;
      return jsonError(c, err.status, err.message || (await res.text()) || 'Request failed.', undefined, headers);
    }
    // JSON.parse of a request body (c.req.json()) is the only source of SyntaxError at run time.
    if (err instanceof SyntaxError)
      return jsonError(c, 400, `The request body is not valid JSON: ${err.message}`, 'invalid_json');
    // Redis or Postgres out of reach: 503 with Retry-After, in the route's shape (a JSON-RPC error on /mcp, /acp, /a2a).
    const unavailable = unavailableOf(err);
    if (unavailable) {
      logger.warn('a request needs a dependency that is unavailable', {
        method: c.req.method,
        path: c.req.path,
        dependency: unavailable.dependency,
        error: unavailable.message,
      });
      const headers = { 'retry-after': String(unavailable.retryAfterSeconds) };
      if (JSON_RPC_PREFIXES.some((p) => c.req.path === p || c.req.path.startsWith(`${p}/`))) {
        const body = c.get('parsedBody' as never) as unknown;
        return c.json(
          {
            jsonrpc: '2.0',
            id: answerableId(body),
            error: {
              code: -32000,
              message: unavailable.message,
              data: { retryAfterSeconds: unavailable.retryAfterSeconds },
            },
          },
          503,
          headers,
        );
      }
      return jsonError(c, 503, unavailable.message, 'unavailable', headers);
    }
    logger.error('unhandled error', {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return jsonError(c, 500, 'Internal error; see the server log.');
  };
}
