/**
 * Caps on the per-client state a transport keeps (MCP sessions, ACP connections): at most `perCaller`
 * per caller and `total` in all. A client over a cap makes room by closing the least recently used
 * IDLE client (nothing streaming to it: a client that vanished without saying goodbye); when none is
 * idle the newcomer is refused, and the transport answers "try later" in its protocol's shape.
 * Without the caps, 3,000 MCP initialize calls held +404 MB until the idle sweep ran 30 minutes later.
 */
import type { ClientActivity } from './tracked-body.ts';

export interface ClientCaps {
  total: number;
  perCaller: number;
}

export const DEFAULT_CLIENT_CAPS: ClientCaps = { total: 256, perCaller: 32 };

/** Seconds a refused client is told to wait (Retry-After): idle clients of others are closed by then or soon after. */
export const RETRY_AFTER_SECONDS = 30;

/** A client a capped transport keeps: whose it is, how busy it is (ClientActivity), and how to close it. */
export interface CappedClient extends ClientActivity {
  caller: string;
  close(): void;
}

/** Room was made (call `release` once the client is in the map, or failed to open), or which cap is full. */
export type Admission = { ok: true; release(): void } | { ok: false; scope: 'caller' | 'total' };

export interface ClientCap {
  /**
   * Makes room for one more client of `caller` and holds its place (the transport learns the client's
   * id only after answering), so concurrent newcomers cannot overshoot a cap.
   */
  admit(caller: string): Admission;
}

/** A cap over `clients`, the map the transport keeps its clients in (and deletes them from when they close). */
export function capClients<T extends CappedClient>(clients: Map<string, T>, caps: ClientCaps): ClientCap {
  const held = new Map<string, number>();
  const heldBy = (caller: string) => held.get(caller) ?? 0;
  const hold = (caller: string, n: number) =>
    heldBy(caller) + n === 0 ? held.delete(caller) : held.set(caller, heldBy(caller) + n);
  const heldInAll = () => [...held.values()].reduce((a, b) => a + b, 0);
  return {
    admit(caller) {
      const own = [...clients.entries()].filter(([, c]) => c.caller === caller);
      if (own.length + heldBy(caller) >= caps.perCaller && !closeLeastRecentIdle(clients, own))
        return { ok: false, scope: 'caller' };
      if (clients.size + heldInAll() >= caps.total && !closeLeastRecentIdle(clients, [...clients.entries()]))
        return { ok: false, scope: 'total' };
      hold(caller, 1);
      let released = false;
      return {
        ok: true,
        release: () => {
          if (!released) hold(caller, -1);
          released = true;
        },
      };
    },
  };
}

function closeLeastRecentIdle<T extends CappedClient>(clients: Map<string, T>, candidates: [string, T][]): boolean {
  let oldest: [string, T] | undefined;
  for (const entry of candidates) {
    if (entry[1].open === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
  }
  if (!oldest) return false;
  clients.delete(oldest[0]);
  oldest[1].close();
  return true;
}

/** The refusal's wording and HTTP status: 429 when the caller's own cap is full, 503 when the server's is. */
export function refusalOf(scope: 'caller' | 'total', what: string): { status: 429 | 503; message: string } {
  return scope === 'caller'
    ? { status: 429, message: `Too many open ${what} for this caller, none idle; close one or try again later.` }
    : { status: 503, message: `Too many open ${what} on this server, none idle; try again later.` };
}
