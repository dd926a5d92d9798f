/**
 * Per-request and per-step models on every protocol, each driven by its own client SDK against one
 * real engine over HTTP on 127.0.0.1. What each client chose is read back from the scripted
 * model's request log: the model every call of the run asked for, by role.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { ClientFactory, type Client as A2AClient } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { methods, type ClientContext } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import OpenAI from 'openai';
import { callerOf } from '../../../src/http/auth.ts';
import { silentLogger } from '../../../src/log.ts';
import { a2aRoutes } from '../../../src/protocols/a2a/index.ts';
import { acpRoutes, type AcpRoutes } from '../../../src/protocols/acp/index.ts';
import { aguiRoutes } from '../../../src/protocols/agui/index.ts';
import { mcpRoutes } from '../../../src/protocols/mcp/index.ts';
import { openaiRoutes } from '../../../src/protocols/openai/index.ts';
import { sseRoutes } from '../../../src/protocols/sse/index.ts';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { serveRoutes, type TestServer } from '../../support/http.ts';
import { send, text } from '../../support/protocols/a2a-helpers.ts';
import { recordingClient } from '../../support/protocols/acp-client.ts';
import type { AskResult } from '../../support/protocols/mcp-helpers.ts';

let parley: TestParley;
let server: TestServer;
let acp: AcpRoutes;
let a2a: A2AClient;
let mcp: McpClient;
let openai: OpenAI;

beforeAll(async () => {
  parley = await createTestParley();
  const deps = { engine: parley.engine, approvals: parley.approvals, config: parley.config, logger: silentLogger };
  acp = acpRoutes({ engine: parley.engine, callerOf, models: ACP_MODELS });
  let url = '';
  server = await serveRoutes([
    { path: '/', app: aguiRoutes(deps) },
    { path: '/', app: sseRoutes(deps) },
    { path: '/', app: openaiRoutes(deps) },
    { path: '/', app: acp.app },
    { path: '/mcp', app: mcpRoutes({ ...deps, store: parley.store }) },
    { path: '/', app: a2aRoutes({ ...deps, store: parley.store, publicUrl: () => url }) },
  ]);
  url = server.url;
  a2a = await new ClientFactory().createFromUrl(server.url);
  mcp = new McpClient({ name: 'models-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  await mcp?.close();
  await acp?.close();
  await server?.close();
  await parley?.close();
});

/** Role → the models the run's calls asked the scripted model for. */
function modelsByRole(runId: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of parley.scripted.requests) {
    if (r.runId !== runId || r.endpoint !== 'chat.completions') continue;
    const list = (out[r.role ?? '?'] ??= []);
    if (!list.includes(r.model)) list.push(r.model);
  }
  return out;
}

async function finished(runId: string) {
  const result = await parley.engine.get(runId)!.result;
  expect(result.status, result.error).toBe('completed');
  return result;
}

const DIRECT = 'hello there [[route:direct]]';
/** The models the ACP `model` config option offers here. */
const ACP_MODELS = ['gpt-4o', 'scripted'];
const PLANNED = 'compare caching strategies [[route:plan]] [[steps:1]]';

describe('SSE /stream body', () => {
  it('models by role reach the calls of those roles; others keep the configured model', async () => {
    const res = await fetch(`${server.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: PLANNED, models: { planner: 'gpt-4o', synthesizer: 'gpt-4o-mini' } }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const runId = res.headers.get('x-parley-run-id')!;
    await finished(runId);
    const byRole = modelsByRole(runId);
    expect(byRole.planner).toEqual(['gpt-4o']);
    expect(byRole.synthesizer).toEqual(['gpt-4o-mini']);
    expect(byRole.router).toEqual(['scripted']);
  });

  it('a bad role or model name is a 400 naming the field, and no run starts', async () => {
    const before = parley.scripted.requests.length;
    for (const [body, field] of [
      [{ query: 'hi', models: { chef: 'gpt-4o' } }, 'models.chef: unknown model role "chef"'],
      [{ query: 'hi', model: 'gpt 4o' }, 'model'],
      [{ query: 'hi', models: { router: '' } }, 'models.router'],
    ] as const) {
      const res = await fetch(`${server.url}/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        new RegExp(`^${field.replace('.', '\\.')}`),
      );
    }
    expect(parley.scripted.requests.length).toBe(before);
  });
});

describe('AG-UI forwardedProps.parley', () => {
  it('one model for every role, through HttpAgent', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: DIRECT });
    const runId = randomUUID();
    await agent.runAgent({ runId, forwardedProps: { parley: { model: 'gpt-4.1-mini' } } });
    await finished(runId);
    const byRole = modelsByRole(runId);
    expect(Object.keys(byRole).length).toBeGreaterThan(0);
    for (const models of Object.values(byRole)) expect(models).toEqual(['gpt-4.1-mini']);
  });

  it('an unknown role is refused before the run starts', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: DIRECT });
    const runId = randomUUID();
    await expect(agent.runAgent({ runId, forwardedProps: { parley: { models: { chef: 'gpt-4o' } } } })).rejects.toThrow(
      /400.*forwardedProps\.parley\.models\.chef: unknown model role/,
    );
    expect(parley.engine.get(runId)).toBeUndefined();
  });
});

describe('A2A message metadata', () => {
  it('metadata.models by role, through the @a2a-js/sdk client', async () => {
    const task = (await a2a.sendMessage(
      send([text(DIRECT)], {}, { models: { default: 'gpt-4o-mini', router: 'gpt-4o' } }),
    )) as Task;
    await finished(task.id);
    const byRole = modelsByRole(task.id);
    expect(byRole.router).toEqual(['gpt-4o']);
    expect(byRole.default).toEqual(['gpt-4o-mini']);
  });

  it('a bad model name is a JSON-RPC error naming the field, and no task is made', async () => {
    const runs = parley.engine.retainedRuns;
    await expect(a2a.sendMessage(send([text(DIRECT)], {}, { models: { chef: 'gpt-4o' } }))).rejects.toThrow(
      /metadata\.models\.chef: unknown model role "chef"/,
    );
    await expect(a2a.sendMessage(send([text(DIRECT)], {}, { model: 42 }))).rejects.toThrow(/metadata\.model: /);
    expect(parley.engine.retainedRuns).toBe(runs);
  });
});

describe('MCP ask arguments', () => {
  it('model and models together: models wins for the roles it names', async () => {
    const r = await mcp.callTool({
      name: 'ask',
      arguments: { query: DIRECT, model: 'gpt-4.1-nano', models: { default: 'gpt-4o' } },
    });
    const { runId } = r.structuredContent as unknown as AskResult;
    await finished(runId);
    const byRole = modelsByRole(runId);
    expect(byRole.router).toEqual(['gpt-4.1-nano']);
    expect(byRole.default).toEqual(['gpt-4o']);
  });

  it("an unknown role is refused by the tool's input validation; nothing runs", async () => {
    const before = parley.scripted.requests.length;
    const r = await mcp
      .callTool({ name: 'ask', arguments: { query: DIRECT, models: { chef: 'gpt-4o' } } })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/models/);
    expect(parley.scripted.requests.length).toBe(before);
  });

  it('a model without a price is refused before any call is sent to it', async () => {
    const r = await mcp.callTool({ name: 'ask', arguments: { query: DIRECT, model: 'mystery-model-9000' } });
    expect(r.isError).toBe(true);
    const { runId, error } = r.structuredContent as unknown as AskResult;
    expect(error).toMatch(/"mystery-model-9000" has no price/);
    expect(parley.scripted.requests.filter((q) => q.runId === runId && q.model === 'mystery-model-9000')).toEqual([]);
  });
});

describe('ACP session/new _meta.parley', () => {
  async function overAcp<T>(op: (ctx: ClientContext) => Promise<T>): Promise<T> {
    const rc = recordingClient();
    return rc.app.connectWith(createHttpStream(`${server.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      return op(ctx);
    });
  }

  it("the session's models apply to each of its prompts", async () => {
    await overAcp(async (ctx) => {
      const session = await ctx
        .buildSession({
          cwd: '/tmp',
          mcpServers: [],
          _meta: { parley: { models: { synthesizer: 'gpt-4o', specialist: 'gpt-4.1' } } },
        })
        .start();
      for (const prompt of [PLANNED, `and again: ${PLANNED}`]) {
        const response = await session.prompt(prompt);
        const runId = (response._meta as { parley: { runId: string } }).parley.runId;
        await finished(runId);
        const byRole = modelsByRole(runId);
        expect(byRole.synthesizer).toEqual(['gpt-4o']);
        expect(byRole.specialist).toEqual(['gpt-4.1']);
        expect(byRole.verifier).toEqual(['scripted']);
      }
    });
  });

  it('config options: mode and model are selects; set_config_option changes them for the next prompts', async () => {
    await overAcp(async (ctx) => {
      const created = await ctx.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      const sessionId = created.sessionId;
      const byId = (options: typeof created.configOptions) => Object.fromEntries((options ?? []).map((o) => [o.id, o]));
      const initial = byId(created.configOptions);
      expect(initial.mode).toMatchObject({ category: 'mode', type: 'select', currentValue: 'auto' });
      expect(initial.model).toMatchObject({ category: 'model', type: 'select', currentValue: 'default' });
      expect((initial.model as { options: { value: string }[] }).options.map((o) => o.value)).toEqual([
        'default',
        ...ACP_MODELS,
      ]);

      const set = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'model',
        value: 'gpt-4o',
      });
      expect(byId(set.configOptions).model?.currentValue).toBe('gpt-4o');
      const moded = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'mode',
        value: 'direct',
      });
      expect(byId(moded.configOptions).mode?.currentValue).toBe('direct');
      const prompted = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'hello with a chosen model' }],
      });
      const runId = (prompted._meta as { parley: { runId: string } }).parley.runId;
      await finished(runId);
      const byRole = modelsByRole(runId);
      expect(Object.keys(byRole)).not.toContain('planner'); // the mode option made it a direct run
      for (const models of Object.values(byRole)) expect(models).toEqual(['gpt-4o']);

      // set_mode and the mode option are one setting.
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'council' });
      const back = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'model',
        value: 'default',
      });
      expect(byId(back.configOptions).mode?.currentValue).toBe('council');
      expect(byId(back.configOptions).model?.currentValue).toBe('default');

      for (const [configId, value] of [
        ['model', 'gpt-5-unlisted'],
        ['mode', 'turbo'],
        ['temperature', 'hot'],
      ]) {
        const refused = await ctx
          .request(methods.agent.session.setConfigOption, { sessionId, configId: configId!, value: value! })
          .then(
            () => undefined,
            (e: unknown) => e as { code: number; message: string },
          );
        expect(refused?.code, `${configId}=${value}`).toBe(-32602);
      }
      const after = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'mode',
        value: 'council',
      });
      expect(byId(after.configOptions).model?.currentValue).toBe('default');
    });
  });

  it('a bad choice is invalid params naming the field, and no session is made', async () => {
    await overAcp(async (ctx) => {
      await expect(
        ctx
          .buildSession({ cwd: '/tmp', mcpServers: [], _meta: { parley: { models: { router: 'two words' } } } })
          .start(),
      ).rejects.toThrow(/_meta\.parley\.models\.router: a model name/);
    });
  });
});

describe('OpenAI-compatible model field', () => {
  it('in orchestration mode a non-Parley model is the model of every role', async () => {
    const { response } = await openai.chat.completions
      .create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: PLANNED }] },
        { headers: { 'x-routing-mode': 'orchestration' } },
      )
      .withResponse();
    const runId = response.headers.get('x-parley-run-id')!;
    await finished(runId);
    const byRole = modelsByRole(runId);
    expect(Object.keys(byRole)).toEqual(expect.arrayContaining(['specialist', 'verifier', 'synthesizer']));
    for (const models of Object.values(byRole)) expect(models).toEqual(['gpt-4o-mini']);
  });

  it('parley-orchestration keeps the configured models; parley.models picks per role; a bad role is a 400', async () => {
    const { response } = await openai.chat.completions
      .create({
        model: 'parley-orchestration',
        messages: [{ role: 'user', content: PLANNED }],
        parley: { models: { verifier: 'o3-mini' } },
      } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    const runId = response.headers.get('x-parley-run-id')!;
    await finished(runId);
    const byRole = modelsByRole(runId);
    expect(byRole.verifier).toEqual(['o3-mini']);
    expect(byRole.synthesizer).toEqual(['scripted']);
    await expect(
      openai.chat.completions.create({
        model: 'parley-orchestration',
        messages: [{ role: 'user', content: PLANNED }],
        parley: { models: { chef: 'x' } },
      } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming),
    ).rejects.toMatchObject({ status: 400, param: 'parley.models.chef' });
  });
});

describe('a plan step naming a model', () => {
  it("the step's specialist calls use it, and its lineage says so", async () => {
    const handle = parley.engine.start({
      query: 'compare caching strategies [[route:plan]] [[steps:2]] [[stepmodel:gpt-4.1-nano]]',
      protocol: 'test',
    });
    const result = await finished(handle.id);
    const lineageModels: (string | undefined)[] = [];
    for await (const e of handle.events()) if (e.type === 'step.finished') lineageModels.push(e.lineage?.model);
    expect(lineageModels).toEqual(['gpt-4.1-nano', 'gpt-4.1-nano']);
    const byRole = modelsByRole(result.runId);
    expect(byRole.specialist).toEqual(['gpt-4.1-nano']);
    expect(byRole.synthesizer).toEqual(['scripted']);
  });

  it('a step naming a model without a price stops the run (a budget refusal) without calling it', async () => {
    const handle = parley.engine.start({
      query: 'compare caching strategies [[route:plan]] [[steps:1]] [[stepmodel:mystery-model-9000]]',
      protocol: 'test',
    });
    const result = await handle.result;
    expect(result).toMatchObject({
      status: 'blocked',
      error: expect.stringMatching(/"mystery-model-9000" has no price/),
    });
    expect(parley.scripted.requests.filter((q) => q.runId === handle.id && q.model === 'mystery-model-9000')).toEqual(
      [],
    );
  });
});
