/**
 * A replica whose Redis goes away (docs/deployment.md, "When a component fails"): GET /ready says so
 * with 503 and the reason, and runs still start and finish (what replicas tell each other is lost
 * meanwhile and logged, the durable state is Postgres's).
 */
import { describe, expect, it, vi } from 'vitest';
import { follow, replicasMissing, useReplicas } from '../../../support/replicas.ts';
import { postJson } from '../../../support/protocols/sse-read.ts';

const missing = replicasMissing();
if (missing) console.log(`redis-down.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 120_000 });

const { replica, stopRedis } = useReplicas('parley-redis-down');

describe.skipIf(missing !== undefined)('a replica without its Redis', () => {
  it('is not ready (503, naming Redis) and still runs what it is asked', async () => {
    const a = await replica();
    // Ready once its start-up ingestion has discovered the MCP servers (a fresh data dir).
    await vi.waitFor(async () => expect((await fetch(`${a.url}/ready`)).status).toBe(200), { timeout: 30_000 });
    await stopRedis();
    await vi.waitFor(async () => {
      const ready = await fetch(`${a.url}/ready`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/redis/);
    });
    const res = await postJson(`${a.url}/stream`, { query: 'What is a glacier?', mode: 'direct' });
    expect(res.status).toBe(200);
    const run = follow(res);
    await run.done;
    expect(run.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(a.log()).toContain('redis: connection lost; reconnecting');
  });
});
