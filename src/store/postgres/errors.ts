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
