/**
 * A real Redis for tests (issue 17): Debian's `redis-server` on a free 127.0.0.1 port, nothing saved
 * (`--save ''`, no AOF), in a temporary folder; stop() shuts it down. Where the binary is missing,
 * REDIS_MISSING says so and the suites skip (CI installs it: .ci/run).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export const REDIS_MISSING =
  'skipped: no redis-server binary on PATH; install the Debian package `redis-server` (CI does)';

export function redisServerPresent(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Starts redis-server on a free port, or on `port` (a Redis started again where clients expect it). */
export async function startRedis(port?: number): Promise<TestRedis> {
  if (!redisServerPresent()) throw new Error(REDIS_MISSING);
  const dir = mkdtempSync(join(tmpdir(), 'parley-redis-'));
  port ??= await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  const url = `redis://127.0.0.1:${port}`;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
