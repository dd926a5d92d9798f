/**
 * Bearer API keys (PARLEY_API_KEYS, and PARLEY_ADMIN_KEYS for operators) on every route except the
 * public ones (/health). Each request gets a Caller whose id is derived from the key (never the key
 * itself): the owner of everything its runs produce, and the subject of budgets and rate limits.
 * An admin key's caller also sees every other caller's runs and approvals (docs/security.md, "Callers are isolated").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { LOCAL_CALLER, type Caller } from '../identity/caller.ts';
import { errorBody } from './errors.ts';

export interface ParleyEnv {
  Variables: { caller: Caller };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A stable, non-secret id for a key: "key-" and the first 12 hex digits of its SHA-256. */
export const callerIdOf = (key: string) => `key-${digest(key).toString('hex').slice(0, 12)}`;

export const ANONYMOUS: Caller = LOCAL_CALLER;

/** The caller of a request (anonymous when auth is off). */
export const callerOf = (c: Context): Caller => (c.get('caller') as Caller | undefined) ?? ANONYMOUS;

/**
 * Operators act on the server itself (its tool configuration, reloads): an admin key, or the one local
 * caller when auth is off (the user who runs Parley on their machine).
 */
export const isOperator = (caller: Caller): boolean => caller.admin === true || caller.id === LOCAL_CALLER.id;

/** Refuses a route to every caller but operators, with 403 and what to send instead. */
export const operatorsOnly: MiddlewareHandler = async (c, next) => {
  if (isOperator(callerOf(c))) return next();
  return c.json(
    errorBody('forbidden', `${c.req.method} ${c.req.path} is for operators: send a key from PARLEY_ADMIN_KEYS.`),
    403,
  );
};

export interface AuthOptions {
  /** Empty (and no adminKeys): auth is off (the server logs that once when it starts listening). */
  keys: string[];
  /** Keys whose caller is an admin; they authenticate like `keys`. */
  adminKeys?: string[];
  /** Paths reachable without a key: exact, or a prefix when the entry ends in `/*` ("/assets/*"). */
  publicPaths?: string[];
  /**
   * The local service token (`<data dir>/service.token`, mode 0600, docs/service.md): the bearer the
   * `parley acp` / `parley mcp` bridges send. It authenticates as the one local caller, as those
   * commands do in-process; it adds no way in for anyone else and does not turn auth on or off.
   */
  localToken?: string;
}

/**
 * Finds the caller a bearer token belongs to; comparisons are constant-time on the keys' digests.
 * A key listed in both lists is an admin key.
 */
function keyMatcher(keys: string[], adminKeys: string[], localToken?: string): (token: string) => Caller | undefined {
  const local = localToken ? digest(localToken) : undefined;
  const admins = new Set(adminKeys);
  const known = [...new Set([...keys, ...adminKeys])].map((key) => ({
    hash: digest(key),
    id: callerIdOf(key),
    admin: admins.has(key),
  }));
  return (token) => {
    const hash = digest(token);
    if (local && timingSafeEqual(local, hash)) return LOCAL_CALLER;
    const match = known.find((k) => timingSafeEqual(k.hash, hash));
    if (!match) return undefined;
    return match.admin ? { id: match.id, admin: true } : { id: match.id };
  };
}

/** Whether any key is configured: otherwise auth is off and every request is the one local caller. */
export const authEnabled = (keys: string[], adminKeys: string[] = []) => keys.length + adminKeys.length > 0;

/**
 * The same check for requests that never reach Hono (WebSocket upgrades on the Node server):
 * the caller of an `Authorization: Bearer <key>` header, ANONYMOUS when auth is off, undefined when refused.
 */
export function authenticateBearer(
  keys: string[],
  adminKeys: string[] = [],
  localToken?: string,
): (authorization: string | undefined) => Caller | undefined {
  if (!authEnabled(keys, adminKeys)) return () => ANONYMOUS;
  const match = keyMatcher(keys, adminKeys, localToken);
  return (authorization) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    return token ? match(token) : undefined;
  };
}

/**
 * Whether an `Authorization: Bearer <token>` header carries exactly `token` (constant-time): how the
 * service tells its own stdio bridges (docs/service.md) from every other client.
 */
export function bearerIsToken(authorization: string | undefined, token: string | undefined): boolean {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  return token !== undefined && sent !== undefined && timingSafeEqual(digest(sent), digest(token));
}

export function apiKeyAuth({
  keys,
  adminKeys = [],
  publicPaths = ['/health'],
  localToken,
}: AuthOptions): MiddlewareHandler<ParleyEnv> {
  if (!authEnabled(keys, adminKeys)) {
    return async (c, next) => {
      c.set('caller', ANONYMOUS);
      await next();
    };
  }
  const match = keyMatcher(keys, adminKeys, localToken);
  const check = bearerAuth<ParleyEnv>({
    verifyToken: (token, c) => {
      const caller = match(token);
      if (caller) c.set('caller', caller);
      return caller !== undefined;
    },
    noAuthenticationHeader: {
      message: errorBody('unauthorized', 'Missing API key: send Authorization: Bearer <key>.'),
    },
    invalidAuthenticationHeader: {
      message: errorBody('bad_request', 'Malformed Authorization header: expected Bearer <key>.'),
    },
    invalidToken: { message: errorBody('unauthorized', 'Invalid API key.') },
  });
  const isPublic = publicPathMatcher(publicPaths);
  return async (c, next) => (isPublic(c.req.path) ? next() : check(c, next));
}

function publicPathMatcher(paths: string[]): (path: string) => boolean {
  const exact = new Set(paths.filter((p) => !p.endsWith('/*')));
  const prefixes = paths.filter((p) => p.endsWith('/*')).map((p) => p.slice(0, -1));
  return (path) => exact.has(path) || prefixes.some((prefix) => path.startsWith(prefix) && path.length > prefix.length);
}
