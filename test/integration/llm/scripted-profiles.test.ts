/** The scripted model's provider profiles, through the openai SDK over real HTTP. */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';

const open: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function client(profile: string) {
  const model = await startScriptedModel({ profile });
  open.push(model);
  return { model, sdk: new OpenAI({ baseURL: `${model.url}/v1`, apiKey: 'x', maxRetries: 0 }) };
}

const ROUTE_SCHEMA = {
  type: 'object',
  properties: { route: { type: 'string', enum: ['direct', 'plan', 'council'] }, reason: { type: 'string' } },
  required: ['route', 'reason'],
  additionalProperties: false,
};
const routeFormat = { type: 'json_schema' as const, json_schema: { name: 'route', schema: ROUTE_SCHEMA } };
const user = (content: string) => [{ role: 'user' as const, content }];

async function rejected(p: Promise<unknown>): Promise<{ status: number; param: unknown; message: string }> {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as InstanceType<typeof OpenAI.APIError> | undefined;
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return { status: err!.status as number, param: err!.param, message: err!.message };
}

describe('scripted model profiles', () => {
  it('openai (default): json_schema answered with bare JSON', async () => {
    const { sdk } = await client('openai');
    const r = await sdk.chat.completions.create({
      model: 'm',
      messages: user('hi there [[route:plan]]'),
      response_format: routeFormat,
    });
    expect(JSON.parse(r.choices[0]!.message.content!)).toMatchObject({ route: 'plan' });
  });

  it('response-format-ignored: the JSON comes inside a sentence', async () => {
    const { sdk } = await client('response-format-ignored');
    const r = await sdk.chat.completions.create({
      model: 'm',
      messages: user('hi there [[route:plan]]'),
      response_format: routeFormat,
    });
    const text = r.choices[0]!.message.content!;
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/^Sure, the route is \{"route":"plan",.*\} — I hope that helps\.$/);
  });

  it('json-schema-rejected: 400 naming response_format; json_object still works', async () => {
    const { sdk } = await client('json-schema-rejected');
    expect(
      await rejected(sdk.chat.completions.create({ model: 'm', messages: user('x'), response_format: routeFormat })),
    ).toMatchObject({ status: 400, param: 'response_format' });
    const r = await sdk.chat.completions.create({
      model: 'm',
      messages: user('x'),
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({});
  });

  it('strict-ignored: tool arguments carry a field the schema does not have', async () => {
    const { sdk } = await client('strict-ignored');
    const tools = [{ type: 'function' as const, function: { name: 'route', parameters: ROUTE_SCHEMA, strict: true } }];
    const forced = await sdk.chat.completions.create({
      model: 'm',
      messages: user('hello [[route:direct]]'),
      tools,
      tool_choice: { type: 'function', function: { name: 'route' } },
    });
    const args = JSON.parse(
      (forced.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }).function.arguments,
    );
    expect(args).toMatchObject({ route: 'direct', note: expect.any(String) });
  });

  it('max-tokens-rejected: 400 on max_tokens, max_completion_tokens accepted', async () => {
    const { sdk } = await client('max-tokens-rejected');
    const err = await rejected(sdk.chat.completions.create({ model: 'm', messages: user('x'), max_tokens: 10 }));
    expect(err).toMatchObject({ status: 400, param: 'max_tokens' });
    expect(err.message).toContain('max_completion_tokens');
    await expect(
      sdk.chat.completions.create({ model: 'm', messages: user('x'), max_completion_tokens: 10 }),
    ).resolves.toBeTruthy();
  });

  it('temperature-rejected: 400 naming temperature', async () => {
    const { sdk } = await client('temperature-rejected');
    expect(
      await rejected(sdk.chat.completions.create({ model: 'm', messages: user('x'), temperature: 0.2 })),
    ).toMatchObject({ status: 400, param: 'temperature' });
    await expect(sdk.chat.completions.create({ model: 'm', messages: user('x') })).resolves.toBeTruthy();
  });

  it('reasoning: reasoning_content and reasoning beside the answer, in messages and stream deltas, counted in usage', async () => {
    const { sdk } = await client('reasoning');
    const r = await sdk.chat.completions.create({ model: 'm', messages: user('Explain queues') });
    const message = r.choices[0]!.message as unknown as {
      content: string;
      reasoning_content: string;
      reasoning: string;
    };
    expect(message.reasoning_content).toContain('{"draft": true');
    expect(message.reasoning).toBe(message.reasoning_content);
    expect(message.content).not.toContain('draft');
    expect(r.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: user('Explain queues'),
      stream: true,
      stream_options: { include_usage: true },
    });
    let thinking = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      thinking += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    expect(thinking).toBe(message.reasoning_content);
    expect(content).toBe(message.content);
  });

  it('no-stream-usage: no usage chunk even when asked for', async () => {
    const { sdk } = await client('no-stream-usage');
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: user('x'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const usages = [];
    for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage);
    expect(usages).toEqual([]);
  });

  it('system-hoisted: system messages merged into one at the start', async () => {
    const { sdk, model } = await client('system-hoisted');
    await sdk.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: 'first' },
        { role: 'user', content: 'q' },
        { role: 'system', content: 'second' },
      ],
    });
    const body = model.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(body.messages).toEqual([
      { role: 'system', content: 'first\n\nsecond' },
      { role: 'user', content: 'q' },
    ]);
  });

  it('tools-rejected, images-rejected: 400 naming what is unsupported', async () => {
    const { sdk } = await client('tools-rejected,images-rejected');
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    expect(await rejected(sdk.chat.completions.create({ model: 'm', messages: user('x'), tools }))).toMatchObject({
      status: 400,
      param: 'tools',
    });
    const image = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'what is this' },
          { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    expect((await rejected(sdk.chat.completions.create({ model: 'm', messages: image }))).status).toBe(400);
  });

  it('presets combine profiles; an unknown name is refused', async () => {
    const { sdk } = await client('anthropic-compat');
    const r = await sdk.chat.completions.create({
      model: 'm',
      messages: user('hi [[route:direct]]'),
      response_format: routeFormat,
    });
    expect(r.choices[0]!.message.content).toMatch(/^Sure, the route is /);
    expect(() => startScriptedModel({ profile: 'openai,bogus' })).toThrow(/unknown scripted profile "bogus"/);
  });

  it('a schema in the prompt (<parley:schema name="…">) is answered like response_format', async () => {
    const { sdk } = await client('response-format-ignored');
    const prompt = `Reply with JSON. <parley:schema name="route">${JSON.stringify(ROUTE_SCHEMA)}</parley:schema>`;
    const r = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'system', content: prompt }, ...user('hi [[route:council]]')],
    });
    expect(r.choices[0]!.message.content).toMatch(/```json\n\{"route":"council",[^\n]*\}\n```/);
  });
});
