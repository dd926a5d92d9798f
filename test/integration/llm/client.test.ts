/** The model client against the scripted model over real HTTP on 127.0.0.1, through the openai SDK. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../src/config.ts';
import { createModelClient, ModelError, type ParleyModelClient } from '../../../src/llm/index.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { startScriptedModel } from '../../../src/scripted-model/index.ts';
import { useScriptedModel } from '../../support/use-scripted-model.ts';

const scripted = useScriptedModel({ retryAfterMs: 1000 });

function client(env: Record<string, string> = {}): ParleyModelClient {
  const config = loadConfig({
    PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
    PARLEY_MODEL_API_KEY: 'test-key',
    PARLEY_MODEL: 'scripted',
    PARLEY_MODEL_RETRY_BASE_MS: '1',
    PARLEY_MODEL_TIMEOUT_MS: '5000',
    ...env,
  });
  return createModelClient(config.model);
}

const user = (content: string) => [{ role: 'user' as const, content }];
const RouteSchema = z.object({ route: z.enum(['direct', 'plan', 'council']), reason: z.string() });

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('structured output', () => {
  it('parses a json_schema answer into the zod type and sends role and run id headers', async () => {
    const result = await client().structured({
      role: 'router',
      runId: 'run-1',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('<parley:query>hello</parley:query>'),
    });
    expect(result.value).toEqual({ route: 'direct', reason: expect.any(String) });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(scripted.requests).toHaveLength(1);
    expect(scripted.requests[0]).toMatchObject({ role: 'router', runId: 'run-1', schemaName: 'route' });
    const body = scripted.requests[0]!.body as { response_format: { json_schema: { schema: { required: string[] } } } };
    expect(body.response_format.json_schema.schema.required).toEqual(['route', 'reason']);
  });

  it('gets a GraphPlan whose steps use the specialists that match the query', async () => {
    const specialists = [
      { id: 'researcher', description: 'Finds and summarizes sources', domains: ['research'] },
      { id: 'database', description: 'Designs database schemas and queries', domains: ['data'] },
      { id: 'writer', description: 'Writes documentation', domains: ['docs'] },
    ];
    const { value } = await client().structured({
      role: 'planner',
      schema: GraphPlanSchema,
      schemaName: 'graph_plan',
      messages: [
        {
          role: 'system',
          content: `Candidates: <parley:specialists>${JSON.stringify(specialists)}</parley:specialists>`,
        },
        { role: 'user', content: '<parley:query>Design a database schema for an orders table</parley:query>' },
      ],
    });
    expect(value.steps.map((s) => s.specialist)).toEqual(['database']);
    expect(value.steps[0]!.phase).toBe('execution');
  });

  it('repairs malformed JSON once: the second call carries the error back', async () => {
    scripted.setFaults([{ fault: 'malformed', times: 1 }]);
    const result = await client().structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('<parley:query>Please plan a migration of the billing service</parley:query>'),
    });
    expect(result.value.route).toBe('plan');
    expect(scripted.requests.map((r) => r.fault)).toEqual(['malformed', undefined]);
    expect(scripted.requests[1]!.lastUserMessage).toMatch(/not valid JSON/);
    // Usage covers both calls.
    expect(result.usage.inputTokens).toBeGreaterThan(scripted.requests.length);
  });

  it('repairs schema-violating JSON once', async () => {
    scripted.setFaults([{ fault: 'schema', times: 1 }]);
    const result = await client().structured({
      role: 'router',
      schema: RouteSchema,
      schemaName: 'route',
      messages: user('<parley:query>hello</parley:query>'),
    });
    expect(result.value.route).toBe('direct');
    expect(scripted.requests[1]!.lastUserMessage).toMatch(/does not match the schema/);
  });

  it('throws ModelError invalid_output when the repair is invalid too', async () => {
    scripted.setFaults([{ fault: 'malformed', times: 2 }]);
    const error = await client()
      .structured({ role: 'verifier', schema: RouteSchema, schemaName: 'route', messages: user('hello') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: 'invalid_output',
      role: 'verifier',
      raw: expect.stringContaining('truncated'),
    });
    // The tokens of both rejected answers are still reported, for budgets.
    expect((error as ModelError).usage!.outputTokens).toBeGreaterThan(0);
    expect(scripted.requests).toHaveLength(2);
  });
});

describe('retries and timeouts', () => {
  it('retries a 429 after the Retry-After the server sent, then succeeds', async () => {
    scripted.setFaults([{ fault: '429', times: 1 }]);
    const result = await client().chat({ role: 'specialist', messages: user('Summarize the log') });
    expect(result.text).toContain('Summarize the log');
    expect(scripted.requests.map((r) => r.status)).toEqual([429, 200]);
    // retryBaseMs is 1 ms, so only Retry-After (1 s) explains the gap.
    const gap = scripted.requests[1]!.arrivedAt - scripted.requests[0]!.finishedAt!;
    expect(gap).toBeGreaterThanOrEqual(990);
  });

  it('retries a 500 with backoff and gives up after maxRetries with a typed error', async () => {
    scripted.setFaults([{ fault: '500', times: 10 }]);
    const error = await client({ PARLEY_MODEL_MAX_RETRIES: '2' })
      .chat({ role: 'specialist', messages: user('anything') })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'server', status: 500, attempts: 3 });
    expect(scripted.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    const error = await client()
      .chat({ role: 'specialist', messages: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, attempts: 1 });
  });

  it('a hanging call hits the per-attempt timeout, and the request is closed', async () => {
    scripted.setFaults([{ fault: 'hang', times: 1 }]);
    // Timed on the client's clock, the one the timeout runs on: the server's view starts when the
    // request arrives, which on a loaded machine is tens of ms after the client's timer started.
    const started = performance.now();
    const error = await client({ PARLEY_MODEL_TIMEOUT_MS: '300', PARLEY_MODEL_MAX_RETRIES: '0' })
      .chat({ role: 'specialist', messages: user('wait forever') })
      .catch((e: unknown) => e);
    const waited = performance.now() - started;
    expect(error).toMatchObject({ kind: 'timeout' });
    // Timers may fire up to a millisecond early on Node's clock rounding.
    expect(waited).toBeGreaterThanOrEqual(299);
    // The request is closed: the server sees the client go away.
    await until(() => scripted.requests[0]?.aborted === true);
  });

  it('a timeout is retried: the hang once, then an answer', async () => {
    scripted.setFaults([{ fault: 'hang', times: 1 }]);
    const result = await client({ PARLEY_MODEL_TIMEOUT_MS: '300' }).chat({
      role: 'specialist',
      messages: user('second time lucky'),
    });
    expect(result.text).toContain('second time lucky');
    expect(scripted.requests.map((r) => r.aborted)).toEqual([true, false]);
  });
});

describe('cancellation', () => {
  it('abort cancels the in-flight HTTP request: the server sees the client go away', async () => {
    const controller = new AbortController();
    const pending = client().chat({
      role: 'specialist',
      signal: controller.signal,
      messages: user('[[fault:hang]] cancel me'),
    });
    await until(() => scripted.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    await until(() => scripted.requests[0]!.aborted);
    expect(scripted.requests).toHaveLength(1);
  });

  it('abort during a stream closes the stream connection', async () => {
    const slow = await startScriptedModel({ perTokenMs: 20 });
    try {
      const config = loadConfig({ PARLEY_MODEL_BASE_URL: `${slow.url}/v1`, PARLEY_MODEL_API_KEY: 'k' });
      const controller = new AbortController();
      const seen: string[] = [];
      const consume = (async () => {
        for await (const chunk of createModelClient(config.model).stream({
          role: 'synthesizer',
          signal: controller.signal,
          messages: user('a long answer please'),
        })) {
          if (chunk.type === 'delta') seen.push(chunk.text);
          if (seen.length === 2) controller.abort();
        }
      })();
      await expect(consume).rejects.toMatchObject({ kind: 'aborted' });
      await until(() => slow.requests[0]?.aborted === true);
      expect(slow.requests[0]!.status).toBeUndefined();
    } finally {
      await slow.close();
    }
  });
});

describe('streaming', () => {
  it('yields text deltas, then done with the full text and usage from the final chunk', async () => {
    const chunks = [];
    for await (const chunk of client().stream({
      role: 'synthesizer',
      runId: 'run-s',
      messages: user('Explain event sourcing'),
    }))
      chunks.push(chunk);
    const deltas = chunks.filter((c) => c.type === 'delta');
    const done = chunks.at(-1)!;
    // The scripted model writes its chunks in a burst: deltas read together arrive as one (chat-stream.ts).
    expect(deltas.length).toBeGreaterThan(0);
    expect(done.type).toBe('done');
    if (done.type !== 'done') return;
    expect(deltas.map((d) => d.text).join('')).toBe(done.text);
    expect(done.text).toContain('Explain event sourcing');
    expect(done.finishReason).toBe('stop');
    expect(done.usage.outputTokens).toBeGreaterThan(0);
    expect(done.usage.inputTokens).toBeGreaterThan(0);
    expect(scripted.requests[0]).toMatchObject({ stream: true, role: 'synthesizer', runId: 'run-s' });
    expect((scripted.requests[0]!.body as { stream_options: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('retries a stream that fails before its first delta', async () => {
    scripted.setFaults([{ fault: '500', times: 1 }]);
    let text = '';
    for await (const chunk of client().stream({ role: 'synthesizer', messages: user('retry me') }))
      if (chunk.type === 'done') text = chunk.text;
    expect(text).toContain('retry me');
    expect(scripted.requests.map((r) => r.status)).toEqual([500, 200]);
  });
});

describe('tools', () => {
  it('returns the tool calls the model makes', async () => {
    const result = await client().chat({
      role: 'specialist',
      messages: user('Save it [[tool:filesystem/write_file {"path":"notes.md","content":"hi"}]]'),
      tools: [
        {
          type: 'function',
          function: {
            name: 'filesystem__write_file',
            parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
          },
        },
      ],
    });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([
      { id: expect.any(String), name: 'filesystem__write_file', arguments: '{"path":"notes.md","content":"hi"}' },
    ]);
  });
});

describe('cost', () => {
  const catalog = JSON.parse(readFileSync(new URL('../../../prices.json', import.meta.url), 'utf8')) as {
    models: Record<string, { input: number; output: number; cached?: number }>;
  };

  it('computes cost from the price catalog for a known model', async () => {
    const { usage } = await client().chat({
      role: 'specialist',
      model: 'gpt-4o-mini',
      messages: user('What does this cost?'),
    });
    const price = catalog.models['gpt-4o-mini']!;
    expect(usage.model).toBe('gpt-4o-mini');
    expect(usage.costUsd).toBeCloseTo((usage.inputTokens * price.input + usage.outputTokens * price.output) / 1e6, 12);
    expect(usage.costUsd).toBeGreaterThan(0);
  });

  it('reports an unknown model cost as null, not zero', async () => {
    const { usage } = await client({ PARLEY_MODEL_SPECIALIST: 'mystery-model-9000' }).chat({
      role: 'specialist',
      messages: user('And this?'),
    });
    expect(usage.model).toBe('mystery-model-9000');
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(usage.costUsd).toBeNull();
  });

  it('modelFor resolves per-role models with the default as fallback', () => {
    const c = client({ PARLEY_MODEL: 'gpt-4o-mini', PARLEY_MODEL_VERIFIER: 'gpt-4.1' });
    expect(c.modelFor('verifier')).toBe('gpt-4.1');
    expect(c.modelFor('router')).toBe('gpt-4o-mini');
    expect(c.modelFor('router', 'o3')).toBe('o3');
  });
});
