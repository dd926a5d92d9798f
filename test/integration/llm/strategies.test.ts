/**
 * Structured-output strategies, capabilities and run-time learning: the model client against the
 * scripted model started with provider profiles, over real HTTP through the openai SDK.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../src/config.ts';
import { createModelClient, ModelError } from '../../../src/llm/index.ts';
import { createLogger } from '../../../src/log.ts';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';

const open: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function setup(profile: string, env: Record<string, string> = {}) {
  const scripted = await startScriptedModel({ profile });
  open.push(scripted);
  const lines: string[] = [];
  const config = loadConfig({
    PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
    PARLEY_MODEL_API_KEY: 'k',
    PARLEY_MODEL: 'm',
    PARLEY_MODEL_RETRY_BASE_MS: '1',
    ...env,
  });
  const model = createModelClient(config.model, { logger: createLogger('warn', (l) => lines.push(l)) });
  return { scripted, model, lines };
}

const RouteSchema = z.object({ route: z.enum(['direct', 'plan', 'council']), reason: z.string() });
const user = (content: string) => [{ role: 'user' as const, content }];
const bodies = (s: ScriptedModel) => s.requests.map((r) => r.body as Record<string, unknown>);

describe('structured strategies', () => {
  it('json_schema, answered in prose (response-format-ignored): the JSON is found inside the sentence', async () => {
    const { model, scripted } = await setup('response-format-ignored');
    const r = await model.structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('hi [[route:plan]]'),
    });
    expect(r.value.route).toBe('plan');
    expect(scripted.requests).toHaveLength(1);
  });

  it('tool: a forced tool call whose parameters are the schema; extra fields (strict ignored) are dropped by zod', async () => {
    const { model, scripted } = await setup('anthropic-compat', { PARLEY_MODEL_PROVIDER: 'anthropic' });
    const r = await model.structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('hi [[route:council]]'),
    });
    expect(r.value).toEqual({ route: 'council', reason: expect.any(String) });
    const body = bodies(scripted)[0]!;
    expect(body.response_format).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'route' } });
    expect(
      (body.tools as { function: { parameters: { required: string[] } } }[])[0]!.function.parameters.required,
    ).toEqual(['route', 'reason']);
  });

  it('prompt: the compact schema and an example in the prompt; a fenced answer mid-reply is extracted', async () => {
    const { model, scripted } = await setup('response-format-ignored', { PARLEY_MODEL_STRUCTURED: 'prompt' });
    const r = await model.structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: [{ role: 'system', content: 'You route.' }, ...user('hi [[route:plan]]')],
    });
    expect(r.value.route).toBe('plan');
    const body = bodies(scripted)[0]!;
    expect(body.response_format).toBeUndefined();
    expect(body.tools).toBeUndefined();
    const system = (body.messages as { role: string; content: string }[])[0]!;
    expect(system.content).toMatch(/^You route\.\n\nAnswer with only one JSON object named "route"/);
    expect(system.content).toContain('<parley:schema name="route">{"type":"object"');
    expect(system.content).toContain('Example of the shape (placeholder values): {"route":"direct","reason":"…"}');
  });

  it('the one repair turn shows the exact validation error and the schema, under every strategy', async () => {
    for (const strategy of ['json_schema', 'tool', 'prompt']) {
      const { model, scripted } = await setup('openai', { PARLEY_MODEL_STRUCTURED: strategy });
      scripted.setFaults([{ fault: 'schema', times: 1 }]);
      const r = await model.structured({
        role: 'router',
        schema: RouteSchema,
        schemaName: 'route',
        messages: user('hi [[route:direct]]'),
      });
      expect(r.value.route, strategy).toBe('direct');
      expect(scripted.requests, strategy).toHaveLength(2);
      const repair = scripted.requests[1]!.lastUserMessage;
      expect(repair, strategy).toMatch(
        /^Your previous answer was rejected: it is does not match the schema: ✖ Invalid option: expected one of "direct"\|"plan"\|"council"/,
      );
      expect(repair, strategy).toContain('<parley:schema name="route">{"type":"object"');
    }
  });

  it('reasoning fields stay out of the answer and out of JSON extraction; reasoning tokens are counted', async () => {
    const { model } = await setup('reasoning');
    const r = await model.structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('hi [[route:council]]'),
    });
    expect(r.value.route).toBe('council');
    expect(r.usage.reasoningTokens).toBeGreaterThan(0);
    const chat = await model.chat({ role: 'specialist', messages: user('Explain queues') });
    expect(chat.text).not.toContain('draft');
    let streamed = '';
    let reasoningTokens = 0;
    for await (const chunk of model.stream({ role: 'specialist', messages: user('Explain queues') })) {
      if (chunk.type === 'delta') streamed += chunk.text;
      else if (chunk.type === 'done') reasoningTokens = chunk.usage.reasoningTokens ?? 0;
    }
    expect(streamed).toBe(chat.text);
    expect(reasoningTokens).toBeGreaterThan(0);
  });
});

describe('run-time learning', () => {
  it('json_schema rejected with a 400: switches to the tool strategy, remembers it, logs once', async () => {
    const { model, scripted, lines } = await setup('json-schema-rejected');
    for (let i = 0; i < 2; i++) {
      const r = await model.structured({
        role: 'planner',
        schema: RouteSchema,
        schemaName: 'route',
        messages: user('hi [[route:plan]]'),
      });
      expect(r.value.route).toBe('plan');
    }
    expect(scripted.requests.map((r) => r.status)).toEqual([400, 200, 200]);
    expect(model.capabilities('router').structured).toBe('tool');
    expect(lines.filter((l) => l.includes('rejected response_format'))).toHaveLength(1);
  });

  it('json_schema and tools rejected: ends on the prompt strategy', async () => {
    const { model, scripted } = await setup('small-local');
    const r = await model.structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('hi [[route:council]]'),
    });
    expect(r.value.route).toBe('council');
    expect(scripted.requests.map((r) => r.status)).toEqual([400, 400, 200]);
    expect(model.capabilities('router')).toMatchObject({ structured: 'prompt', tools: false });
  });

  it('max_tokens and temperature rejected: switched to max_completion_tokens and dropped, for chat and streams', async () => {
    const { model, scripted, lines } = await setup('o-series', {
      PARLEY_MODEL_MAX_TOKENS: '300',
      PARLEY_MODEL_TEMPERATURE: '0.3',
    });
    const r = await model.chat({ role: 'specialist', messages: user('Summarize') });
    expect(r.text).toContain('Summarize');
    const last = bodies(scripted).at(-1)!;
    expect(last).toMatchObject({ max_completion_tokens: 300 });
    expect(last).not.toHaveProperty('temperature');
    expect(last).not.toHaveProperty('max_tokens');
    expect(scripted.requests.map((r) => r.status)).toEqual([400, 400, 200]);
    let text = '';
    for await (const c of model.stream({ role: 'specialist', messages: user('Again') }))
      if (c.type === 'delta') text += c.text;
    expect(text).toContain('Again');
    expect(scripted.requests.map((r) => r.status)).toEqual([400, 400, 200, 200]);
    expect(lines.filter((l) => /rejected (max_tokens|temperature)/.test(l))).toHaveLength(2);
  });

  it('a 400 that names nothing Parley sent is thrown as before', async () => {
    const { model } = await setup('images-rejected');
    const err = await model
      .chat({
        role: 'specialist',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'bad_request', status: 400 });
  });

  it('no usage in streams: tokens unknown, cost unknown (null), never 0', async () => {
    const { model } = await setup('no-stream-usage');
    let done;
    for await (const c of model.stream({ role: 'synthesizer', messages: user('x') })) if (c.type === 'done') done = c;
    expect(done!.usage.costUsd).toBeNull();
  });
});

describe('capabilities and headers from configuration', () => {
  it('per-role overrides; presets detected from the base URL; a named preset wins', () => {
    const config = loadConfig({
      PARLEY_MODEL_BASE_URL: 'https://api.anthropic.com/v1/',
      PARLEY_MODEL_API_KEY: 'k',
      PARLEY_MODEL: 'claude-sonnet-4-5',
      PARLEY_MODEL_VERIFIER_STRUCTURED: 'prompt',
      PARLEY_MODEL_PLANNER_CAPABILITIES: 'stream_usage=no,images=no',
      PARLEY_MODEL_COUNCIL_CHAIRMAN_BASE_URL: 'https://api.openai.com/v1',
      PARLEY_MODEL_COUNCIL_CHAIRMAN: 'o3-mini',
      PARLEY_MODEL_SYNTHESIZER_PROVIDER: 'deepseek',
      PARLEY_MODEL_SYNTHESIZER: 'deepseek-reasoner',
    });
    const model = createModelClient(config.model);
    expect(model.capabilities('router')).toMatchObject({ structured: 'tool', maxTokensField: 'max_tokens' });
    expect(model.capabilities('verifier').structured).toBe('prompt');
    expect(model.capabilities('planner')).toMatchObject({
      structured: 'tool',
      streamUsage: false,
      images: false,
      tools: true,
    });
    expect(model.capabilities('council_chairman')).toMatchObject({
      structured: 'json_schema',
      maxTokensField: 'max_completion_tokens',
      temperature: false,
    });
    expect(model.capabilities('synthesizer')).toMatchObject({ structured: 'prompt', tools: false });
  });

  it('bad capability and header settings stop start-up naming the variable', () => {
    expect(() => loadConfig({ PARLEY_MODEL_CAPABILITIES: 'tools=maybe' })).toThrow(
      /^PARLEY_MODEL_CAPABILITIES=.*tools="maybe" is not allowed/,
    );
    expect(() => loadConfig({ PARLEY_MODEL_CAPABILITIES: 'wings=yes' })).toThrow(/unknown capability "wings"/);
    // Headers may carry credentials: the error names the setting and never quotes its value.
    expect(() => loadConfig({ PARLEY_MODEL_HEADERS: 'X-Tenant: acme' })).toThrow(
      /^PARLEY_MODEL_HEADERS \(value not shown\) is invalid: .*a JSON object/,
    );
    expect(() => loadConfig({ PARLEY_MODEL_HEADERS: 'X-Tenant: zebra42' })).not.toThrow(/zebra42/);
    expect(() => loadConfig({ PARLEY_MODEL_HEADERS: '{"Bad Name":"x"}' })).toThrow(
      /^PARLEY_MODEL_HEADERS \(value not shown\) is invalid/,
    );
    expect(() => loadConfig({ PARLEY_MODEL_VERIFIER_HEADERS: '{"Authorization":"Bearer s3cret\\n"}' })).not.toThrow(
      /s3cret/,
    );
    expect(() => loadConfig({ PARLEY_MODEL_ROUTER_PROVIDER: 'acme' })).toThrow(/^PARLEY_MODEL_ROUTER_PROVIDER=/);
  });

  it('PARLEY_MODEL_HEADERS and per-role headers reach the provider', async () => {
    const { model, scripted } = await setup('openai', {
      PARLEY_MODEL_HEADERS: '{"X-Tenant":"acme","X-Gateway-Key":"g1"}',
      PARLEY_MODEL_VERIFIER_HEADERS: '{"X-Tenant":"audit"}',
    });
    await model.chat({ role: 'specialist', messages: user('x') });
    await model.structured({ role: 'verifier', schema: RouteSchema, schemaName: 'route', messages: user('x') });
    expect(scripted.requests[0]!.headers).toMatchObject({
      'x-tenant': 'acme',
      'x-gateway-key': 'g1',
      'x-parley-role': 'specialist',
    });
    expect(scripted.requests[1]!.headers).toMatchObject({ 'x-tenant': 'audit', 'x-parley-role': 'verifier' });
    expect(scripted.requests[1]!.headers['x-gateway-key']).toBeUndefined();
  });
});
