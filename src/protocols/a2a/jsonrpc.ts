/**
 * The A2A JSON-RPC endpoint on Hono. The SDK bundles this glue only for Express
 * (`jsonRpcHandler` in @a2a-js/sdk/server/express); this is the same flow on web-standard
 * Request/Response: the SDK's transport handlers do all JSON-RPC work (method dispatch, params,
 * error envelopes), the SDK's SSE formatter writes streams. Requests whose A2A-Version header is
 * 0.3 or absent go through the SDK's v0.3 compat handler, as in the Express glue. Params are
 * checked against zod schemas (params.ts) before either handler sees them.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import {
  A2A_VERSION_HEADER,
  Extensions,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
  formatSSEErrorEvent,
  formatSSEEvent,
  type AgentCard,
} from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  A2A_ERROR_CODE,
  ContentTypeNotSupportedError,
  JsonRpcRequestMalformedError,
  RequestMalformedError,
} from '@a2a-js/sdk/errors';
import {
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  validateVersion,
  type A2ARequestHandler,
  type User,
} from '@a2a-js/sdk/server';
import type { Logger } from '../../log.ts';
import { paramsProblem } from './params.ts';
import { startHeartbeat } from '../shared/heartbeat.ts';

export interface JsonRpcRouteOptions {
  handler: A2ARequestHandler;
  card: AgentCard;
  userOf: (c: Context) => User;
  logger: Logger;
  /** SSE comment line interval, so proxies keep an idle stream open (PARLEY_SSE_HEARTBEAT_MS). */
  heartbeatMs: number;
}

type Envelope = {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number } & Record<string, unknown>;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function jsonRpcRoute(options: JsonRpcRouteOptions): (c: Context) => Promise<Response> {
  const v1 = new JsonRpcTransportHandler(options.handler);
  const v03 = new LegacyJsonRpcTransportHandler(options.handler);

  return async (c) => {
    const requested = c.req.header(A2A_VERSION_HEADER);
    const legacy = (requested || '0.3') === '0.3';
    const mapError = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const reply = (id: Envelope['id'], error: unknown, httpStatus: 200 | 500 = 200) =>
      c.json({ jsonrpc: '2.0', id, error: mapError(error) }, httpStatus);

    // The binding's body is application/json; anything else is ContentTypeNotSupportedError (-32005) with
    // HTTP 200, as every JSON-RPC error here and as the SDK's Express glue answers it. The app's body check
    // lets such bodies through to here unread (OWN_CONTENT_TYPE_PATHS in src/http/app.ts).
    const contentType = c.req.header('content-type');
    if (contentType?.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
      return reply(
        null,
        new ContentTypeNotSupportedError(
          contentType
            ? `Unsupported Content-Type "${contentType}"; expected application/json.`
            : 'No Content-Type; send the body as application/json.',
        ),
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: A2A_ERROR_CODE.PARSE_ERROR, message: 'Invalid JSON payload.' },
      });
    }
    const id = isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    // JSON-RPC 2.0 names a malformed envelope "Invalid Request" (-32600); the v1.0 handler reports it
    // as invalid params, so the envelope is checked here and the SDK builds the error.
    if (
      !legacy &&
      !(isObject(body) && body.jsonrpc === '2.0' && typeof body.method === 'string' && body.method !== '')
    ) {
      return reply(
        id,
        new JsonRpcRequestMalformedError({
          message: 'Invalid JSON-RPC Request.',
          envelopeCode: A2A_ERROR_CODE.INVALID_REQUEST,
        }),
      );
    }

    try {
      const context = defaultServerCallContextBuilder({
        extensions: Extensions.parseServiceParameter(
          legacy
            ? (c.req.header(LEGACY_HTTP_EXTENSION_HEADER) ?? c.req.header(HTTP_EXTENSION_HEADER))
            : c.req.header(HTTP_EXTENSION_HEADER),
        ),
        user: options.userOf(c),
        headers: Object.fromEntries(c.req.raw.headers),
        requestedVersion: requested || undefined,
      });
      validateVersion(context.requestedVersion, options.card, 'JSONRPC');
      // Params are type-checked here, before the SDK reads (and coerces, or trips on) them.
      // A malformed v0.3 envelope is left to the SDK, which answers -32600.
      if (isObject(body) && body.jsonrpc === '2.0' && typeof body.method === 'string') {
        const problem = paramsProblem(legacy ? '0.3' : '1.0', body.method, body.params);
        if (problem) throw new RequestMalformedError(problem);
      }
      const result = await (legacy ? v03 : v1).handle(body as Record<string, unknown>, context);
      if (context.activatedExtensions) {
        c.header(
          legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER,
          Extensions.toServiceParameter(context.activatedExtensions),
        );
      }
      if (!(Symbol.asyncIterator in result)) return c.json(result, 200);

      const events = result[Symbol.asyncIterator]();
      let first: IteratorResult<unknown>;
      try {
        first = await events.next();
      } catch (err) {
        return reply(id, err);
      }
      for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
      return stream(c, async (out) => {
        // A client that goes away detaches its queue from the task's bus; the run goes on.
        out.onAbort(() => void events.return?.(undefined));
        const heartbeat = startHeartbeat((text) => out.write(text), options.heartbeatMs, 'keep-alive');
        try {
          if (!first.done) await out.write(formatSSEEvent(first.value));
          for (let next = await events.next(); !next.done && !out.aborted; next = await events.next()) {
            heartbeat.wrote();
            await out.write(formatSSEEvent(next.value));
          }
        } catch (err) {
          options.logger.warn('a2a: stream failed', { error: (err as Error).message });
          if (!out.aborted) await out.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(err) }));
        } finally {
          heartbeat.stop();
          await events.return?.(undefined);
        }
      });
    } catch (err) {
      const mapped = mapError(err) as { code: number };
      if (mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR)
        options.logger.error('a2a: request failed', { error: (err as Error).message });
      return reply(id, err, mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
    }
  };
}
