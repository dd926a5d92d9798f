/**
 * The container image (issue 35, Containerfile, docs/deployment.md): built from the repository on CI's local
 * base, at most 350 MB, non-root; it refuses 0.0.0.0 without PARLEY_ALLOWED_HOSTS and keys; a container serves
 * /health (its HEALTHCHECK passes), answers a run through /stream (scripted model), keeps its runs on its
 * volume across a restart, and exits 0 within its grace period on SIGTERM. Prints size, cold start, idle memory.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { postJson, readAll } from '../support/protocols/sse-read.ts';
import {
  IMAGES,
  IMAGES_TIMEOUT_MS,
  answers,
  ensureImages,
  memoryMb,
  podman,
  podmanMissing,
  logsOf,
  run,
  waitFor,
} from '../support/podman.ts';

const missing = podmanMissing();
if (missing) console.log(`image.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 180_000 });

const name = `parley-image-test-${process.pid}`;
const volume = `${name}-home`;
const KEY = 'image-test-key';
const auth = { authorization: `Bearer ${KEY}` };

describe.skipIf(missing !== undefined)('the container image', () => {
  beforeAll(ensureImages, IMAGES_TIMEOUT_MS);
  afterAll(async () => {
    await run('podman', ['rm', '-f', '-t', '0', name]);
    await run('podman', ['volume', 'rm', '-f', volume]);
  });

  it('is at most 350 MB, runs as a non-root user, and refuses 0.0.0.0 without PARLEY_ALLOWED_HOSTS and keys', async () => {
    const [size, user, healthcheck] = (
      await podman('image', 'inspect', '--format', '{{.Size}}|{{.Config.User}}|{{.HealthCheck.Test}}', IMAGES.parley)
    ).split('|');
    const mb = Number(size) / 1e6;
    console.log(`image.test.ts: ${IMAGES.parley} is ${mb.toFixed(0)} MB`);
    expect(mb).toBeLessThanOrEqual(350);
    expect(user).toBe('parley');
    expect(healthcheck).toContain('/health');

    const refused = await run('podman', ['run', '--rm', IMAGES.parley]);
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('refusing to listen on 0.0.0.0');
    expect(refused.stderr).toContain('PARLEY_ALLOWED_HOSTS');
    expect(refused.stderr).toContain('PARLEY_API_KEYS');
    const keysOnly = await run('podman', ['run', '--rm', '-e', `PARLEY_API_KEYS=${KEY}`, IMAGES.parley]);
    expect(keysOnly.code).toBe(78);
    expect(keysOnly.stderr).not.toContain('PARLEY_API_KEYS');
  });

  it('serves /health, answers a run through /stream, keeps it on its volume across a restart, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const started = Date.now();
    await podman(
      ...['run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8787`, '-v', `${volume}:/var/lib/parley`],
      ...['-e', 'PARLEY_ALLOWED_HOSTS=parley.example.com', '-e', `PARLEY_API_KEYS=${KEY}`, IMAGES.parley],
    );
    await waitFor('/health of the container', () => answers(`${base}/health`), 90_000);
    const coldStartMs = Date.now() - started;
    expect((await run('podman', ['healthcheck', 'run', name])).code).toBe(0);
    // Auth is on: /ready needs the key.
    expect((await fetch(`${base}/ready`)).status).toBe(401);
    // Ready once the start-up ingestion has discovered the MCP servers (a fresh volume: /ready is 503 "ingesting" until then).
    await waitFor('/ready of the container', () => answers(`${base}/ready`, auth), 30_000);
    expect(await (await fetch(`${base}/ready`, { headers: auth })).json()).toMatchObject({
      ready: true,
      checks: { knowledge: 'ok' },
    });

    const res = await postJson(`${base}/stream`, { query: 'What is the capital of France?', mode: 'direct' }, auth);
    expect(res.status).toBe(200);
    const runId = res.headers.get('x-parley-run-id')!;
    const events = (await readAll(res)).map((m) => m.json);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    await new Promise((r) => setTimeout(r, 2000)); // idle after a run
    const idleMb = await memoryMb(name);

    const stopping = Date.now();
    await podman('stop', '-t', '30', name);
    const stopMs = Date.now() - stopping;
    expect(await podman('inspect', '--format', '{{.State.ExitCode}}', name)).toBe('0');
    // PARLEY_SHUTDOWN_TIMEOUT_MS is 10 s: Parley is done well before podman's SIGKILL at 30 s.
    expect(stopMs).toBeLessThan(12_000);
    expect(await logsOf(name)).toContain('SIGTERM: shutting down');

    await podman('start', name);
    await waitFor('/health after the restart', () => answers(`${base}/health`), 90_000);
    const kept = await fetch(`${base}/api/runs/${runId}`, { headers: auth });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ id: runId, status: 'completed' });
    console.log(
      `image.test.ts: cold start to /health ${coldStartMs} ms; idle memory after a run ${idleMb.toFixed(0)} MB; ` +
        `SIGTERM to exit 0 in ${stopMs} ms`,
    );
  });
});
