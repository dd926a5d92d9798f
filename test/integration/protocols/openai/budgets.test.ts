/**
 * The OpenAI-compatible passthrough goes through the same caller rate limit and budgets as every
 * run (issue #12 §5), driven by the official openai SDK over real HTTP against the scripted model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startRig, type Rig } from '../../../support/protocols/agui-rig.ts';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function client(r: Rig): OpenAI {
  return new OpenAI({
    baseURL: `${r.url}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
    defaultHeaders: { 'X-Routing-Mode': 'passthrough' },
  });
}

const ask = (c: OpenAI, text = 'Say hello.') =>
  c.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: text }] });

async function refusal(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  throw new Error('the call was not refused');
}

describe('passthrough budgets', () => {
  it("counts against the caller's per-minute rate limit: 429 in OpenAI's shape with Retry-After", async () => {
    rig = await startRig({ config: { budget: { caller: { runsPerMinute: 2 } } } });
    const c = client(rig);
    await ask(c);
    await ask(c);
    const before = rig.parley.scripted.requests.length;
    const err = await refusal(ask(c));
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.message).toMatch(/rate limit: caller "anonymous" may start 2 runs per minute/);
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThan(0);
    // The refused call never reached the model; a run of the same caller is refused the same way.
    expect(rig.parley.scripted.requests.length).toBe(before);
    const run = await rig.parley.run({ query: 'hello', caller: { id: 'anonymous' } });
    expect(run.result.status).toBe('blocked');
  });

  it("is charged to the caller's token budget (streamed too), and refused once it is spent", async () => {
    rig = await startRig({ config: { budget: { caller: { tokens: 400 } } } });
    const c = client(rig);
    const first = await ask(c, 'Say hello in a few words.');
    expect(first.usage!.total_tokens).toBeGreaterThan(0);
    // The call went out with the max output its reservation covered (capped by the 400-token budget).
    const sent = rig.parley.scripted.requests.at(-1)!.body as { max_tokens?: number };
    expect(sent.max_tokens).toBeGreaterThan(0);
    expect(sent.max_tokens).toBeLessThanOrEqual(400);

    // A stream that did not ask for usage is charged all the same, and its client sees no usage chunk.
    const stream = await c.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'Tell me a long story about tea.' }],
      stream: true,
    });
    const chunks = [];
    for await (const part of stream) chunks.push(part);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((p) => !p.usage)).toBe(true);

    let err: InstanceType<typeof OpenAI.APIError> | undefined;
    for (let i = 0; i < 10 && !err; i++) {
      err = await ask(c, 'Say hello again.').then(
        () => undefined,
        (e: unknown) => (e instanceof OpenAI.APIError ? e : Promise.reject(e)),
      );
    }
    expect(err?.status).toBe(429);
    expect(err?.code).toBe('budget_exceeded');
    expect(err?.message).toMatch(/caller token budget: "anonymous" has used \d+ of 400 tokens in this window$/);
    expect(Number(err?.headers?.get('retry-after'))).toBeGreaterThan(0);
    // The spend is the same ledger a run sees.
    expect((await rig.parley.run({ query: 'hello', caller: { id: 'anonymous' } })).result.error).toMatch(
      /caller token budget/,
    );
  });

  it('refuses a model without a price with 400 naming it, before calling the model', async () => {
    rig = await startRig();
    const before = rig.parley.scripted.requests.length;
    const err = await refusal(
      client(rig).chat.completions.create({ model: 'mystery-model-9000', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('model_not_priced');
    expect(err.message).toMatch(/model "mystery-model-9000" has no price/);
    expect(rig.parley.scripted.requests.length).toBe(before);
  });
});
