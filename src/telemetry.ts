/**
 * OpenTelemetry: the NodeSDK configured from the standard OTEL_* variables (exporter, endpoint,
 * headers, service name, sampler), started only when OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_TRACES_EXPORTER is set. Spans are made through @opentelemetry/api, a no-op when the SDK is
 * not started; code on a per-call path still checks tracingOff() to skip even the no-op span (its two
 * async frames per span would be held by every run in flight).
 */
import { ProxyTracerProvider, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Logger } from './log.ts';

const TRACER = 'parley';

export interface Telemetry {
  enabled: boolean;
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

export function telemetryEnabled(env: Env = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
    (exporter && exporter !== 'none'),
  );
}

/** Starts the NodeSDK when the environment asks for it; otherwise returns a disabled handle. */
export async function startTelemetry(logger: Logger, env: Env = process.env): Promise<Telemetry> {
  if (!telemetryEnabled(env)) return { enabled: false, shutdown: async () => {} };
  // Loaded only when used: the SDK pulls in every exporter and is slow to import.
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME || 'parley', instrumentations: [] });
  sdk.start();
  logger.info('telemetry on', {
    exporter: env.OTEL_TRACES_EXPORTER || 'otlp',
    endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  return {
    enabled: true,
    shutdown: async () => {
      try {
        await sdk.shutdown();
      } catch (err) {
        logger.warn('telemetry shutdown failed', { error: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}

/** What the API's tracer provider delegates to while no SDK is registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * No tracer provider is registered (telemetry off): every span would be a no-op, so hot paths may
 * skip building spans and their attributes. Cheap enough to check per call, so an SDK started later is seen.
 */
export function tracingOff(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_TRACER_PROVIDER;
}

/** Drops undefined/null values, which OpenTelemetry attributes do not allow. */
export function attributes(values: Record<string, string | number | boolean | undefined | null>): Attributes {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null)) as Attributes;
}

/**
 * Runs fn inside an active span named `name`: records an exception and error status when fn
 * throws, and always ends the span. fn may add attributes through the span it is given.
 */
export function withSpan<T>(
  name: string,
  attrs: Record<string, string | number | boolean | undefined | null>,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes: attributes(attrs) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Records an error on a span: the exception event and an ERROR status with its message. */
export function markFailed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : new Error(String(err)));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** A span for work that is not one function call (a stream consumed by someone else); end it yourself. */
export function startSpan(name: string, attrs: Record<string, string | number | boolean | undefined | null>): Span {
  return trace.getTracer(TRACER).startSpan(name, { attributes: attributes(attrs) });
}
