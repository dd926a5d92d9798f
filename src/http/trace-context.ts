/**
 * Accepts W3C trace context (traceparent / tracestate) from callers: the request is handled inside
 * the caller's trace, so a run started by a peer agent or an instrumented client becomes a child
 * span of the caller's span. A no-op while telemetry is off (the API's propagator does nothing).
 */
import { context, propagation } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';

const headerGetter = {
  keys: (carrier: Headers) => [...carrier.keys()],
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
};

export function acceptTraceContext(): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.raw.headers.has('traceparent')) return next();
    const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
    return context.with(parent, next);
  };
}
