/**
 * A caller over its per-minute run limit gets 429 with Retry-After from every streaming adapter,
 * in each protocol's own error shape, before any stream is opened.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import OpenAI from 'openai';
import { HttpAgent } from '@ag-ui/client';
import { startRig, type Rig } from '../../../support/protocols/agui-rig.ts';
import { postJson, readAll } from '../../../support/protocols/sse-read.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ config: { budget: { caller: { runsPerMinute: 1 } } } });
});
afterAll(async () => {
  await rig?.close();
});

it('answers 429 + Retry-After on /stream, /ag-ui and /v1/chat/completions once the limit is used up', async () => {
  const ok = await postJson(`${rig.url}/stream`, { query: 'hello [[route:direct]]' });
  expect(ok.status).toBe(200);
  expect((await readAll(ok)).at(-1)!.json).toMatchObject({ type: 'run.finished', status: 'completed' });

  const sse = await postJson(`${rig.url}/stream`, { query: 'hello again' });
  expect(sse.status).toBe(429);
  expect(Number(sse.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await sse.json()).toMatchObject({
    error: { code: 'rate_limited', message: expect.stringMatching(/rate limit/) },
  });

  const agent = new HttpAgent({ url: `${rig.url}/ag-ui` });
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'hello' });
  await expect(agent.runAgent({ forwardedProps: { parley: {} } }, { onRunFailed: () => ({}) })).rejects.toMatchObject({
    status: 429,
  });

  const client = new OpenAI({ baseURL: `${rig.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const err = await client.chat.completions
    .create({ model: 'parley', messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
});
