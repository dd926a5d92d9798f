/**
 * The compose stack (issue 35, deploy/compose.yaml, docs/deployment.md): `podman-compose up` brings two Parley
 * replicas behind HAProxy on Postgres and Redis (images from Debian's packages). A run waiting for approval on
 * one replica is approved through the balancer and finishes, its file in the workspace both replicas mount;
 * `podman stop` of the replica holding a waiting run (SIGTERM: it suspends the run and frees its lease) lets the
 * other take it over, and the approval given through the balancer finishes it there.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import type { ApprovalRequest } from '../../src/hitl/types.ts';
import { freePort } from '../support/free-port.ts';
import { postJson, readSse } from '../support/protocols/sse-read.ts';
import {
  IMAGES_TIMEOUT_MS,
  answers,
  ensureImages,
  podman,
  podmanMissing,
  logsOf,
  run,
  waitFor,
} from '../support/podman.ts';

const missing = podmanMissing(['podman', 'podman-compose']);
if (missing) console.log(`compose.test.ts: ${missing}`);
vi.setConfig({ testTimeout: 240_000 });

const project = `parleycompose${process.pid}`;
const KEY = 'compose-test-key';
const auth = { authorization: `Bearer ${KEY}` };
const WORKSPACE = '/var/lib/parley/data/workspace';
let port = 0;
const env = () => ({
  POSTGRES_PASSWORD: randomUUID(),
  PARLEY_API_KEYS: KEY,
  PARLEY_ALLOWED_HOSTS: 'localhost',
  PARLEY_PUBLIC_PORT: String(port),
  // A stopped replica's runs are taken over after its lease: 3 s here instead of 15.
  PARLEY_REPLICA_LEASE_MS: '3000',
});
let composeEnv: Record<string, string> = {};
const compose = (...args: string[]) =>
  run('podman-compose', ['-p', project, '-f', 'deploy/compose.yaml', ...args], { env: composeEnv });
const container = (service: string) => `${project}_${service}_1`;
const REPLICAS = [container('parley-1'), container('parley-2')];
const url = () => `http://127.0.0.1:${port}`;

/** A run's events read from `res` in the background until run.finished (or the stream breaks). */
function follow(res: Response) {
  const events: GraphEvent[] = [];
  const done = (async () => {
    try {
      for await (const m of readSse(res)) {
        events.push(m.json);
        if (m.json.type === 'run.finished') break;
      }
    } catch {
      // The replica serving the stream stopped.
    }
  })();
  return { events, done };
}

async function waitingRun(file: string) {
  const args = JSON.stringify({ path: `${WORKSPACE}/${file}`, content: `written by ${file}` });
  const query = `Write ${file} to the workspace files [[steps:1]] [[tool:filesystem/write_file ${args}]]`;
  const res = await postJson(`${url()}/stream`, { query, mode: 'orchestrate' }, auth);
  expect(res.status).toBe(200);
  const runId = res.headers.get('x-parley-run-id')!;
  const stream = follow(res);
  await waitFor('approval.requested', async () => stream.events.some((e) => e.type === 'approval.requested'));
  const asked = stream.events.find((e) => e.type === 'approval.requested') as { request: ApprovalRequest };
  return { runId, stream, request: asked.request };
}

/** The replica container holding the run: its lease in Redis names a replica id each replica logs at start. */
async function holderOf(runId: string): Promise<string> {
  const replicaId = await podman('exec', container('redis'), 'redis-cli', 'GET', `parley:lease:run:${runId}`);
  for (const name of REPLICAS) if ((await logsOf(name)).includes(replicaId)) return name;
  throw new Error(`no replica logged the id ${replicaId} holding run ${runId}`);
}

const approve = (request: ApprovalRequest) =>
  postJson(
    `${url()}/api/approve`,
    {
      request_id: request.id,
      decisions:
        request.kind === 'tool' ? Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, 'accept'])) : {},
    },
    auth,
  );

describe.skipIf(missing !== undefined)('the compose stack', () => {
  beforeAll(async () => {
    await ensureImages();
    port = await freePort();
    composeEnv = env();
    const up = await compose('up', '-d');
    if (up.code !== 0) throw new Error(`podman-compose up failed: ${up.stdout}${up.stderr}`);
    const readyMs = await waitFor('the balancer /ready', () => answers(`${url()}/ready`, auth), 180_000);
    for (const name of REPLICAS) {
      await waitFor(
        `${name} ready`,
        async () => (await run('podman', ['healthcheck', 'run', name])).code === 0,
        120_000,
      );
    }
    console.log(`compose.test.ts: the stack answered /ready through the balancer ${readyMs} ms after up -d`);
  }, IMAGES_TIMEOUT_MS);
  afterAll(async () => {
    if (missing) return;
    const down = await compose('down', '-v');
    if (down.code !== 0) console.log(`compose.test.ts: down failed: ${down.stderr}`);
    await run('podman', ['network', 'rm', '-f', `${project}_default`]); // podman-compose 1.0 leaves it
  });

  it('a run waiting for approval on one replica is approved through the balancer and finishes', async () => {
    const waiting = await waitingRun('one.txt');
    const holder = await holderOf(waiting.runId);
    const other = REPLICAS.find((r) => r !== holder)!;
    expect((await approve(waiting.request)).status).toBe(200);
    await waiting.stream.done;
    expect(waiting.stream.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // Written by the holder's filesystem server, read in the other replica: one workspace volume.
    expect(await podman('exec', other, 'cat', `${WORKSPACE}/one.txt`)).toBe('written by one.txt');
  });

  it('podman stop of the replica holding a waiting run: the other takes it over and finishes it', async () => {
    const waiting = await waitingRun('two.txt');
    const holder = await holderOf(waiting.runId);
    const other = REPLICAS.find((r) => r !== holder)!;
    const stopping = Date.now();
    await podman('stop', '-t', '30', holder);
    const stopMs = Date.now() - stopping;
    expect(await podman('inspect', '--format', '{{.State.ExitCode}}', holder)).toBe('0');
    const takeoverMs = await waitFor('the other replica takes the run over', async () =>
      (await logsOf(other)).includes('taking over a run'),
    );
    console.log(
      `compose.test.ts: ${holder} stopped in ${stopMs} ms (exit 0); ${other} took its run over ${takeoverMs} ms later`,
    );
    // The same approval, still waiting, answered through the balancer (only the other replica is up).
    const listed = (await (await fetch(`${url()}/api/approvals`, { headers: auth })).json()) as {
      approvals: ApprovalRequest[];
    };
    expect(listed.approvals.map((a) => a.id)).toContain(waiting.request.id);
    expect((await approve(waiting.request)).status).toBe(200);
    const after = follow(await fetch(`${url()}/api/runs/${waiting.runId}/events`, { headers: auth }));
    await after.done;
    expect(after.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(await podman('exec', other, 'cat', `${WORKSPACE}/two.txt`)).toBe('written by two.txt');
  });
});
