/**
 * Which Postgres errors no retry can fix. A write that fails because the server restarts, refuses
 * connections for a moment or drops one (no SQLSTATE, class 08 connection, 57 operator intervention,
 * 53 insufficient resources, 40 rollback) is worth retrying; one the server refused for what it is
 * (22 data exception, 23 integrity, 42 syntax or access, 0A not supported) fails the same way again.
 */
const PERMANENT_CLASSES = new Set(['22', '23', '42', '0A']);

export function permanentPostgresError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.length === 5 && PERMANENT_CLASSES.has(code.slice(0, 2));
}

/** True for a failure to reach the database at all (refused, dropped, restarting): a 503, not a 500. */
export function postgresUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  const text = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(text);
}
