/**
 * W3C trace context of the active span, for calls to peers: MCP carries it in `_meta.traceparent`
 * (SEP-414), A2A in the `traceparent` HTTP header. Empty when telemetry is off (the global
 * propagator is then a no-op), so callers add nothing.
 */
import { context, propagation } from '@opentelemetry/api';

export function traceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
