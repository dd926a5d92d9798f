/**
 * The Cluster of one process: pub/sub is a direct call, claims and leases are maps with
 * expiry. What every single-process Parley uses, so the code paths are the same with or without Redis.
 */
import { randomUUID } from 'node:crypto';
import type { Cluster, ClusterListener } from './types.ts';

export function createLocalCluster(now: () => number = Date.now): Cluster {
  const listeners = new Map<string, Set<ClusterListener>>();
  /** key → [holder, expires at]; claims hold "claimed", leases the replica id, values their value. */
  const keys = new Map<string, { value: string; expiresAt: number }>();
  const replicaId = randomUUID();
  /** The holder of a lease let go (as in redis.ts): free to take, and known not to be lost. */
  const released = `${replicaId}:released`;
  /** Expired entries go when read, and all at once past this many (claims are rarely read again). */
  const set = (key: string, value: string, expiresAt: number) => {
    if (keys.size >= 10_000) for (const [k, e] of keys) if (e.expiresAt <= now()) keys.delete(k);
    keys.set(key, { value, expiresAt });
  };
  const live = (key: string) => {
    const entry = keys.get(key);
    if (entry && entry.expiresAt <= now()) keys.delete(key);
    return keys.get(key);
  };
  return {
    replicaId,
    shared: false,
    async publish(channel, message) {
      // A copy, as over the wire: a listener never shares objects with the publisher.
      const copy = structuredClone(message);
      for (const listener of [...(listeners.get(channel) ?? [])]) queueMicrotask(() => listener(copy));
    },
    subscribe(channel, listener) {
      let group = listeners.get(channel);
      if (!group) listeners.set(channel, (group = new Set()));
      group.add(listener);
      return () => {
        group.delete(listener);
        if (group.size === 0) listeners.delete(channel);
      };
    },
    async claim(key, ttlMs) {
      if (live(key)) return false;
      set(key, 'claimed', now() + ttlMs);
      return true;
    },
    async isClaimed(key) {
      return live(key) !== undefined;
    },
    async acquireLease(key, ttlMs) {
      const held = live(key);
      if (held && held.value !== replicaId && held.value !== released) return false;
      set(key, replicaId, now() + ttlMs);
      return true;
    },
    async renewLeases(leaseKeys, ttlMs) {
      const lost: string[] = [];
      for (const key of leaseKeys) {
        const holder = live(key)?.value;
        if (holder === undefined || holder === replicaId) set(key, replicaId, now() + ttlMs);
        else lost.push(key);
      }
      return lost;
    },
    async releaseLease(key) {
      const held = live(key);
      if (held?.value === replicaId) held.value = released;
    },
    async leaseState(key) {
      const holder = live(key)?.value;
      return holder === undefined ? 'missing' : holder === released ? 'released' : 'held';
    },
    async setValue(key, value, ttlMs) {
      set(key, value, now() + ttlMs);
    },
    async getValue(key) {
      return live(key)?.value;
    },
    async deleteValue(key) {
      keys.delete(key);
    },
    ready: () => true,
    async close() {
      listeners.clear();
      keys.clear();
    },
  };
}
