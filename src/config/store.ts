/**
 * The settings of the run store and of replicas (docs/configuration.md, "Store and replicas"):
 * where durable state lives (Config.store) and how replicas share it (Config.cluster).
 */
import { z } from 'zod';
import { text } from './parsers.ts';
import { homeSetting, type Setting } from './setting.ts';

export const STORE_SETTINGS = [
  homeSetting({
    env: 'PARLEY_DATA_DIR',
    at: 'store.dataDir',
    schema: text,
    // Its own value is kept as given (a relative path reads from the folder Parley starts in).
    fromHome: (value, paths) => value ?? paths.dataDir,
    description:
      'Unset: <home>/data. Where the embedded Kuzu database, the run store and the filesystem workspace live. ":memory:" keeps the graph in memory.',
  }),
  {
    env: 'PARLEY_DATABASE_URL',
    at: 'store.databaseUrl',
    schema: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// or postgresql:// URL'),
    description:
      'Keep runs, checkpoints, event logs, approvals, threads, ACP sessions, MCP stream events and A2A tasks and push configs in Postgres (e.g. postgres://parley:…@db:5432/parley) instead of the data dir, so several Parley processes share them (docs/deployment.md). Migrations run at start.',
  },
  {
    env: 'PARLEY_REDIS_URL',
    at: 'cluster.redisUrl',
    schema: z.string().regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL'),
    description:
      'Run as one replica of several (docs/deployment.md, "Replicas"): approvals, cancellations, live events, run leases and the rate limit go through this Redis (e.g. redis://redis:6379). Needs PARLEY_DATABASE_URL.',
  },
  {
    env: 'PARLEY_REPLICA_LEASE_MS',
    at: 'cluster.leaseMs',
    schema: z.coerce.number().int().min(1000).max(600_000),
    default: '15000',
    description:
      "With PARLEY_REDIS_URL: how long a replica holds a run without renewing its lease (renewed every third of it). A killed replica's runs continue on a live one within three times this after its death (its lease expires, then another replica waits a whole lease more: a missing lease may be one Redis lost); a replica that stops politely hands them over within half of it.",
  },
  {
    env: 'PARLEY_REPLICA_URL',
    at: 'cluster.replicaUrl',
    schema: z
      .string()
      .regex(/^https?:\/\/[^/\s]+\/?$/, 'an http:// or https:// URL of this replica, without a path')
      .transform((u) => u.replace(/\/$/, '')),
    description:
      'With PARLEY_REDIS_URL: where the other replicas reach this one (e.g. http://10.0.0.5:8787), so a request for an ACP HTTP connection that reaches another replica is passed here and /acp needs no load-balancer affinity. Default: the address Parley listens on, when that is not a wildcard (0.0.0.0, ::).',
  },
] as const satisfies readonly Setting[];
