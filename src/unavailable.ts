/**
 * A dependency Parley cannot reach just now (Redis, Postgres): what a request that needs it answers is
 * 503 with Retry-After, in the protocol's own shape (http/errors.ts), within a bounded time — never a
 * 500, never a hang. The Redis cluster throws it as soon as its connection is down; unavailableOf()
 * also recognises the drivers' own errors for an unreachable server.
 */
export class UnavailableError extends Error {
  override name = 'UnavailableError';
  constructor(
    /** What is unavailable: "redis", "postgres", or "a backing service" when the error does not say. */
    readonly dependency: string,
    message: string,
    /** When a retry may succeed, in seconds (the Retry-After header). */
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

const POSTGRES_DOWN =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command/i;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error as an UnavailableError when it says a dependency is unreachable; undefined otherwise. */
export function unavailableOf(err: unknown): UnavailableError | undefined {
  if (err instanceof UnavailableError) return err;
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  // ioredis: a command that waited through its retries, or sent on a closed connection.
  if (
    err.name === 'MaxRetriesPerRequestError' ||
    /^Connection is closed|Stream isn't writeable|Command timed out/.test(err.message)
  )
    return new UnavailableError('redis', `Redis is unavailable (${err.message})`);
  // node-postgres: SQLSTATE 08 (connection), 57P0x (shutdown, restart), or its own connection messages.
  if (
    (typeof code === 'string' && (code.startsWith('08') || /^57P0[1-3]$/.test(code))) ||
    POSTGRES_DOWN.test(err.message)
  )
    return new UnavailableError('postgres', `the database is unavailable (${err.message})`);
  // A refused or dropped socket to whatever the route needed (the database, most often).
  if (typeof code === 'string' && NETWORK_CODES.has(code))
    return new UnavailableError('a backing service', `a service Parley depends on is unavailable (${err.message})`);
  return undefined;
}
