/**
 * ACP over HTTP across replicas (docs/deployment.md, "Replicas"). An ACP connection is a live object of
 * the SDK in the replica whose `initialize` opened it: its agent, its sessions, the GET stream its
 * updates go out on, the permission requests it waits on. So instead of moving the connection, every
 * request for it is sent to that replica: the owner notes "connection C lives at <my URL>" in the
 * cluster, and a replica that gets a request naming a connection it does not hold passes the request
 * on (streaming the answer back) to the URL noted. A load balancer needs no affinity for /acp.
 *
 * If the owner is gone (killed), the request is answered as for an unknown connection: the client
 * initializes again on any replica and loads its session (session records are in Postgres).
 */
import type { Cluster } from '../../cluster/types.ts';

/** Marks a request one replica passed to another: it is never passed on again. */
export const FORWARDED_HEADER = 'x-parley-forwarded';

/** How long the owner's note lives without being refreshed (a connection in use refreshes it). */
const NOTE_TTL_MS = 35 * 60_000;
const REFRESH_EVERY_MS = 5 * 60_000;
/** How long a forwarded request waits for the owner to start answering. */
const OWNER_ANSWER_TIMEOUT_MS = 10_000;

/** Request headers that belong to one hop (or that the owner must judge afresh): not passed on. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'origin',
  'referer',
  'te',
  'trailer',
  'proxy-authorization',
  'accept-encoding',
]);
/** Response headers the relay sets itself. */
const RESPONSE_HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'content-length',
  'content-encoding',
  'transfer-encoding',
]);

export interface ConnectionDirectory {
  /** Notes that this replica holds the connection (refreshed, at most every few minutes, while in use). */
  hold(connectionId: string): void;
  /** Forgets this replica's note (the connection closed). */
  drop(connectionId: string): void;
  /** Forgets whoever's note it is (its owner cannot be reached). */
  forget(connectionId: string): void;
  /** The URL of another replica holding the connection; undefined when it is ours or unknown. */
  ownerElsewhere(connectionId: string): Promise<string | undefined>;
}

const noteKey = (connectionId: string) => `acp-connection:${connectionId}`;

/**
 * The cluster's notes of which replica holds which connection. `selfUrl` is where other replicas reach
 * this one (PARLEY_REPLICA_URL, or the address it listens on); without one nothing is noted, and /acp
 * needs affinity at the load balancer.
 */
export function connectionDirectory(cluster: Cluster, selfUrl: () => string | undefined): ConnectionDirectory {
  const written = new Map<string, number>();
  return {
    hold(connectionId) {
      const url = selfUrl();
      const last = written.get(connectionId);
      if (!url || (last !== undefined && Date.now() - last < REFRESH_EVERY_MS)) return;
      written.set(connectionId, Date.now());
      cluster.setValue(noteKey(connectionId), url, NOTE_TTL_MS).catch(() => written.delete(connectionId));
    },
    drop(connectionId) {
      if (!written.delete(connectionId)) return;
      // A note left behind expires with its TTL; a request routed by it finds no connection (404).
      cluster.deleteValue(noteKey(connectionId)).catch(() => undefined);
    },
    forget(connectionId) {
      written.delete(connectionId);
      // As in drop(): the note expires on its own.
      cluster.deleteValue(noteKey(connectionId)).catch(() => undefined);
    },
    async ownerElsewhere(connectionId) {
      // Redis unreachable: served here as an unknown connection (404); the client initializes again.
      const owner = await cluster.getValue(noteKey(connectionId)).catch(() => undefined);
      return owner && owner !== selfUrl() ? owner : undefined;
    },
  };
}

/**
 * Passes `request` to the same path on `ownerUrl` and relays the answer as it streams. Undefined when
 * the owner cannot be reached (the caller then answers as for an unknown connection).
 */
export async function forwardToOwner(
  ownerUrl: string,
  request: Request,
  body: ArrayBuffer | undefined,
  replicaId: string,
): Promise<Response | undefined> {
  const from = new URL(request.url);
  const target = new URL(from.pathname + from.search, ownerUrl);
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) headers.set(name, value);
  });
  headers.set(FORWARDED_HEADER, replicaId);
  const started = new AbortController();
  const timer = setTimeout(() => started.abort(), OWNER_ANSWER_TIMEOUT_MS);
  let answer: Response;
  try {
    answer = await fetch(target, {
      method: request.method,
      headers,
      ...(body ? { body } : {}),
      redirect: 'manual',
      // The client going away ends the relayed request too (a GET stream the owner would keep open).
      signal: AbortSignal.any([request.signal, started.signal]),
    });
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
  const relayed = new Headers();
  answer.headers.forEach((value, name) => {
    if (!RESPONSE_HOP_HEADERS.has(name)) relayed.set(name, value);
  });
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: relayed });
}
