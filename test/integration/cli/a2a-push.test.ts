/**
 * A2A push notifications (docs/protocols/a2a.md, "Push notifications") against a real `parley serve`
 * process, through the @a2a-js/sdk client, with a real HTTP webhook on 127.0.0.1: configs are set,
 * read, listed and deleted by their task's owner only; each task update reaches the webhook with the
 * config's token, in order, retried after 503s; a notification still undelivered when the server is
 * killed with kill -9 arrives after the restart; a private webhook is refused unless allowed.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskState, type SendMessageRequest } from '@a2a-js/sdk';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';
import { a2aClientAs, collect, send, stateOf, taskIdOf, text } from '../../support/protocols/a2a-helpers.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const ALICE = 'key-alice-push';
const BOB = 'key-bob-push';
const { serve, tempDataDir } = useServeProcesses('parley-a2a-push', {
  PARLEY_API_KEYS: `${ALICE},${BOB}`,
  PARLEY_A2A_PUSH_ALLOW_PRIVATE: 'true',
  PARLEY_A2A_PUSH_RETRY_BASE_MS: '50',
});
const webhooks: Server[] = [];
afterEach(async () => {
  for (const w of webhooks.splice(0)) await new Promise((r) => w.close(r));
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A webhook on 127.0.0.1 that answers each request with what `answer` says, and records it. */
async function webhook(answer: (n: number) => number): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const status = answer(received.length);
      received.push({ headers: req.headers, body, answered: status });
      res.writeHead(status).end();
    });
  });
  webhooks.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, received };
}

/** SendMessage with a push config inline (saved before the run starts, so no update is missed). */
function withPush(request: SendMessageRequest, url: string, token: string): SendMessageRequest {
  return {
    ...request,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url, token, authentication: undefined },
      historyLength: undefined,
      returnImmediately: false,
    },
  };
}

const stateIn = (body: string) => /TASK_STATE_[A-Z_]+/.exec(body)?.[0];

describe('A2A push notifications', () => {
  it('each update reaches the webhook with the token, in order, the first after two 503s; configs are the owner’s only', async () => {
    const dataDir = tempDataDir();
    const hook = await webhook((n) => (n < 2 ? 503 : 200));
    const server = await serve(dataDir);
    const alice = await a2aClientAs(server.url, ALICE);
    const bob = await a2aClientAs(server.url, BOB);
    const events = await collect(
      alice.sendMessageStream(
        withPush(
          send([text(writeFileQuery(dataDir, 'push.txt', 'pushed'))], {}, { mode: 'orchestrate' }),
          hook.url,
          'tok-1',
        ),
      ),
    );
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = taskIdOf(events);

    await vi.waitFor(
      () =>
        expect(hook.received.some((r) => r.answered === 200 && stateIn(r.body) === 'TASK_STATE_INPUT_REQUIRED')).toBe(
          true,
        ),
      { timeout: 20_000 },
    );
    expect(hook.received.every((r) => r.headers['x-a2a-notification-token'] === 'tok-1')).toBe(true);
    expect(hook.received.every((r) => r.headers['content-type'] === 'application/a2a+json')).toBe(true);
    // The first notification was refused twice and delivered on the third send, unchanged.
    expect(hook.received.slice(0, 3).map((r) => r.answered)).toEqual([503, 503, 200]);
    expect(new Set(hook.received.slice(0, 3).map((r) => r.body)).size).toBe(1);
    // Delivered in the order the task changed: the input-required status comes last.
    const delivered = hook.received.filter((r) => r.answered === 200).map((r) => stateIn(r.body));
    expect(delivered.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(JSON.parse(hook.received.at(-1)!.body)).toMatchObject({ statusUpdate: { taskId } });

    // Configs: the owner lists, reads, adds and deletes; another caller finds no such task.
    const listed = await alice.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' });
    expect(listed.configs.map((c) => c.url)).toEqual([hook.url]);
    const first = listed.configs[0]!;
    expect(await alice.getTaskPushNotificationConfig({ tenant: '', taskId, id: first.id })).toMatchObject({
      url: hook.url,
    });
    const added = await alice.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId,
      url: `${hook.url}/second`,
      token: 'tok-2',
      authentication: undefined,
    });
    expect(added.id).not.toBe('');
    expect(
      (await alice.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' })).configs,
    ).toHaveLength(2);
    await expect(
      bob.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' }),
    ).rejects.toThrow(/not found/i);
    await alice.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: added.id });
    expect(
      (await alice.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' })).configs.map(
        (c) => c.id,
      ),
    ).toEqual([first.id]);
  });

  it('a notification still undelivered at kill -9 is delivered after the restart', async () => {
    const dataDir = tempDataDir();
    let up = false;
    const hook = await webhook(() => (up ? 200 : 503));
    const first = await serve(dataDir, { PARLEY_A2A_PUSH_RETRY_BASE_MS: '200' });
    const alice = await a2aClientAs(first.url, ALICE);
    const events = await collect(
      alice.sendMessageStream(
        withPush(
          send([text(writeFileQuery(dataDir, 'late.txt', 'late'))], {}, { mode: 'orchestrate' }),
          hook.url,
          'tok-9',
        ),
      ),
    );
    expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await vi.waitFor(() => expect(hook.received.length).toBeGreaterThan(0));
    first.child.kill('SIGKILL');
    await first.exit;
    const refusedBefore = hook.received.length;
    expect(hook.received.every((r) => r.answered === 503)).toBe(true);

    up = true;
    await serve(dataDir);
    await vi.waitFor(
      () =>
        expect(hook.received.some((r) => r.answered === 200 && stateIn(r.body) === 'TASK_STATE_INPUT_REQUIRED')).toBe(
          true,
        ),
      { timeout: 20_000 },
    );
    expect(hook.received.length).toBeGreaterThan(refusedBefore);
    expect(hook.received.at(-1)!.headers['x-a2a-notification-token']).toBe('tok-9');
  });

  it('a webhook on a private address is refused with the reason when PARLEY_A2A_PUSH_ALLOW_PRIVATE is off', async () => {
    const dataDir = tempDataDir();
    const hook = await webhook(() => 200);
    const server = await serve(dataDir, { PARLEY_A2A_PUSH_ALLOW_PRIVATE: 'false' });
    const alice = await a2aClientAs(server.url, ALICE);
    await expect(
      collect(alice.sendMessageStream(withPush(send([text('A question about caching')]), hook.url, 'tok'))),
    ).rejects.toThrow(/PARLEY_A2A_PUSH_ALLOW_PRIVATE/);
    const done = await collect(alice.sendMessageStream(send([text('A question about caching')])));
    const taskId = taskIdOf(done);
    await expect(
      alice.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId,
        url: 'http://169.254.169.254/latest/meta-data',
        token: '',
        authentication: undefined,
      }),
    ).rejects.toThrow(/169\.254\.169\.254.*link-local/);
    // Issue 31: IPv6 forms that carry a loopback address (IPv4-compatible, NAT64, 6to4, Teredo).
    for (const url of [
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://[2001:0:7f00:1::]/',
    ]) {
      await expect(
        alice.createTaskPushNotificationConfig({
          tenant: '',
          id: '',
          taskId,
          url,
          token: '',
          authentication: undefined,
        }),
        url,
      ).rejects.toThrow(/which reaches 127\.0\.0\.1/);
    }
    expect(
      (await alice.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' })).configs,
    ).toEqual([]);
    expect(hook.received).toEqual([]);
  });
});
