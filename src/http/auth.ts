/**
 * Bearer API keys (PARLEY_API_KEYS) on every route except the public ones (/health). Each request
 * gets a Caller whose id is derived from the key (never the key itself), for budgets and rate limits.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import type { Caller } from '../graph/run-request.ts';
import { errorBody } from './errors.ts';

export interface ParleyEnv {
  Variables: { caller: Caller };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A stable, non-secret id for a key: "key-" and the first 12 hex digits of its SHA-256. */
export const callerIdOf = (key: string) => `key-${digest(key).toString('hex').slice(0, 12)}`;

export const ANONYMOUS: Caller = { id: 'anonymous' };

/** The caller of a request (anonymous when auth is off). */
export const callerOf = (c: Context): Caller => (c.get('caller') as Caller | undefined) ?? ANONYMOUS;

export interface AuthOptions {
  /** Empty: auth is off (the server logs that once when it starts listening). */
  keys: string[];
  /** Exact paths reachable without a key. */
  publicPaths?: string[];
}

export function apiKeyAuth({ keys, publicPaths = ['/health'] }: AuthOptions): MiddlewareHandler<ParleyEnv> {
  if (keys.length === 0) {
    return async (c, next) => {
      c.set('caller', ANONYMOUS);
      await next();
    };
  }
  const known = keys.map((key) => ({ hash: digest(key), id: callerIdOf(key) }));
  const check = bearerAuth<ParleyEnv>({
    verifyToken: (token, c) => {
      const hash = digest(token);
      const match = known.find((k) => timingSafeEqual(k.hash, hash));
      if (match) c.set('caller', { id: match.id });
      return match !== undefined;
    },
    noAuthenticationHeader: { message: errorBody('unauthorized', 'Missing API key: send Authorization: Bearer <key>.') },
    invalidAuthenticationHeader: { message: errorBody('bad_request', 'Malformed Authorization header: expected Bearer <key>.') },
    invalidToken: { message: errorBody('unauthorized', 'Invalid API key.') },
  });
  return async (c, next) => (publicPaths.includes(c.req.path) ? next() : check(c, next));
}
