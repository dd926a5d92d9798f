import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { createLocalCluster } from '../../../src/cluster/local.ts';
import { openRedisCluster } from '../../../src/cluster/redis.ts';
import type { Cluster } from '../../../src/cluster/types.ts';
import { silentLogger } from '../../../src/log.ts';
import { REDIS_MISSING, redisServerPresent, startRedis, type TestRedis } from '../../support/redis.ts';
import { clusterContract } from './cluster.contract.ts';

const opened: Cluster[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

clusterContract('in-process', async () => {
  const a = createLocalCluster();
  opened.push(a);
  return { a, b: a, shared: false };
});

const hasRedis = redisServerPresent();
if (!hasRedis) {
  describe('Cluster contract: redis', () => {
    it.skip(REDIS_MISSING, () => {});
  });
} else {
  let redis: TestRedis;
  let n = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  clusterContract('redis', async () => {
    // Each test its own prefix, so their keys never meet.
    const prefix = `t${++n}:`;
    const a = await openRedisCluster({ url: redis.url, logger: silentLogger, prefix });
    const b = await openRedisCluster({ url: redis.url, logger: silentLogger, prefix });
    opened.push(a, b);
    return { a, b, shared: true };
  });
}
