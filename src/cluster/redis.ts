/**
 * The Cluster on Redis (PARLEY_REDIS_URL): one connection for commands, one in subscriber mode.
 * Leases are plain keys holding the replica id with a PX expiry, changed only by their holder (the
 * Lua scripts compare before they write), so a replica that stalled past its lease cannot renew a
 * lease another replica has since taken.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { UnavailableError, unavailableOf } from '../unavailable.ts';
import type { Cluster, ClusterListener } from './types.ts';

// The value of a lease its holder let go (RELEASE): free to take, and known not to be lost.
const RELEASED = '-released-';

const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] or holder == '${RELEASED}' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

// A missing key is taken again: after a Redis restart (no persistence) the holders keep their runs. A released
// one is not: it is only in this list if a renewal crossed its release, and taking it would hold it from the others.
const RENEW = `
local lost = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == false or holder == ARGV[1] then redis.call('SET', key, ARGV[1], 'PX', ARGV[2]) else table.insert(lost, key) end
end
return lost`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], '${RELEASED}', 'KEEPTTL') end
return 0`;

export interface RedisClusterOptions {
  url: string;
  logger: Logger;
  /** Prefix of every key and channel (several Parley deployments may share one Redis). */
  prefix?: string;
  /** How long start-up waits for Redis before it fails. */
  connectTimeoutMs?: number;
  /**
   * The longest wait between two reconnection attempts (default 2 s). Give a quarter of the run lease:
   * once Redis is back, a replica must renew its leases well within the lease others wait on a missing one.
   */
  reconnectMaxMs?: number;
}

export async function openRedisCluster(options: RedisClusterOptions): Promise<Cluster> {
  const prefix = options.prefix ?? 'parley:';
  const connect = () =>
    new Redis(options.url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      // A command on a connection that went silent fails within 2 s; one asked while the connection is
      // down fails at once (live() below): what waits on it answers 503, never hangs (issue 31).
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, options.reconnectMaxMs ?? 2_000),
    });
  const commands = connect();
  const subscriber = connect();
  const listeners = new Map<string, Set<ClusterListener>>();
  let lastError: string | undefined;
  for (const connection of [commands, subscriber]) {
    connection.on('error', (err: Error) => {
      if (lastError !== err.message) options.logger.warn('redis: connection error', { error: err.message });
      lastError = err.message;
    });
    connection.on('ready', () => {
      if (lastError !== undefined) options.logger.info('redis: connected again');
      lastError = undefined;
    });
    // Said once per outage: until Redis is back, /ready answers 503 and replicas hear nothing from this one.
    connection.on('reconnecting', () => {
      if (lastError === undefined) options.logger.warn('redis: connection lost; reconnecting');
      lastError ??= 'connection lost';
    });
  }
  try {
    await Promise.all([commands.connect(), subscriber.connect()]);
  } catch (err) {
    commands.disconnect();
    subscriber.disconnect();
    // The URL may carry a password: name the setting, never its value.
    throw new Error(`PARLEY_REDIS_URL: cannot connect to Redis (${(err as Error).message})`);
  }
  subscriber.on('message', (channel: string, raw: string) => {
    const group = listeners.get(channel.slice(prefix.length));
    if (!group) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      options.logger.warn('redis: ignored a message that is not JSON', { channel });
      return;
    }
    for (const listener of [...group]) listener(message);
  });

  const replicaId = randomUUID();
  const key = (k: string) => prefix + k;
  /** Runs a command when Redis is connected; an UnavailableError (a 503 upstream) when it is not or it fails so. */
  const live = async <T>(command: () => Promise<T>): Promise<T> => {
    if (commands.status !== 'ready')
      throw new UnavailableError('redis', `Redis is unavailable (${lastError ?? commands.status})`, 2);
    try {
      return await command();
    } catch (err) {
      throw unavailableOf(err) ?? err;
    }
  };
  return {
    replicaId,
    shared: true,
    async publish(channel, message) {
      await live(() => commands.publish(key(channel), JSON.stringify(message)));
    },
    subscribe(channel, listener) {
      let group = listeners.get(channel);
      if (!group) {
        listeners.set(channel, (group = new Set()));
        subscriber.subscribe(key(channel)).catch((err: unknown) => {
          options.logger.warn('redis: subscribe failed', { channel, error: String(err) });
        });
      }
      group.add(listener);
      return () => {
        group.delete(listener);
        if (group.size > 0 || listeners.get(channel) !== group) return;
        listeners.delete(channel);
        // If it fails (Redis down) the channel stays subscribed; its messages find no listener and are dropped.
        subscriber.unsubscribe(key(channel)).catch(() => {});
      };
    },
    async claim(k, ttlMs) {
      return (await live(() => commands.set(key(k), replicaId, 'PX', Math.ceil(ttlMs), 'NX'))) === 'OK';
    },
    async isClaimed(k) {
      return (await live(() => commands.exists(key(k)))) === 1;
    },
    async acquireLease(k, ttlMs) {
      return (await live(() => commands.eval(ACQUIRE, 1, key(k), replicaId, Math.ceil(ttlMs)))) === 1;
    },
    async renewLeases(keys, ttlMs) {
      if (keys.length === 0) return [];
      const lost = (await live(() =>
        commands.eval(RENEW, keys.length, ...keys.map(key), replicaId, Math.ceil(ttlMs)),
      )) as string[];
      return lost.map((k) => k.slice(prefix.length));
    },
    async releaseLease(k) {
      await live(() => commands.eval(RELEASE, 1, key(k), replicaId));
    },
    async leaseState(k) {
      const holder = await live(() => commands.get(key(k)));
      return holder === null ? 'missing' : holder === RELEASED ? 'released' : 'held';
    },
    async setValue(k, value, ttlMs) {
      await live(() => commands.set(key(k), value, 'PX', Math.ceil(ttlMs)));
    },
    async getValue(k) {
      return (await live(() => commands.get(key(k)))) ?? undefined;
    },
    async deleteValue(k) {
      await live(() => commands.del(key(k)));
    },
    ready: () =>
      commands.status === 'ready' && subscriber.status === 'ready' ? true : `redis: ${lastError ?? commands.status}`,
    async close() {
      listeners.clear();
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
    },
  };
}
