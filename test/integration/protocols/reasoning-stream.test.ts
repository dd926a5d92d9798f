/**
 * Streaming the model's reasoning when the user asks: the scripted model's `reasoning` profile sends
 * reasoning_content / reasoning beside every answer (streamed as deltas before the content). Seen
 * through ACP (agent_thought_chunk), AG-UI (REASONING_* events, checked by HttpAgent's own event
 * verifier), SSE (model.thought as is) and the OpenAI-compatible stream (delta.reasoning_content),
 * each with its own client; off unless asked.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventType, HttpAgent, type BaseEvent } from '@ag-ui/client';
import { methods, type ClientContext } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { callerOf } from '../../../src/http/auth.ts';
import { silentLogger } from '../../../src/log.ts';
import { acpRoutes, type AcpRoutes } from '../../../src/protocols/acp/index.ts';
import { aguiRoutes } from '../../../src/protocols/agui/index.ts';
import { sseRoutes } from '../../../src/protocols/sse/index.ts';
import { openaiRoutes } from '../../../src/protocols/openai/index.ts';
import OpenAI from 'openai';
import { reasoningText } from '../../../src/scripted-model/profiles.ts';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { serveRoutes, type TestServer } from '../../support/http.ts';
import { recordingClient, type RecordingClient } from '../../support/protocols/acp-client.ts';
import { postJson } from '../../support/protocols/sse-read.ts';

let parley: TestParley;
let server: TestServer;
let acp: AcpRoutes;

beforeAll(async () => {
  parley = await createTestParley({ profile: 'reasoning' });
  const deps = { engine: parley.engine, approvals: parley.approvals, config: parley.config, logger: silentLogger };
  acp = acpRoutes({ engine: parley.engine, callerOf });
  server = await serveRoutes([
    { path: '/', app: aguiRoutes(deps) },
    { path: '/', app: sseRoutes(deps) },
    { path: '/', app: acp.app },
    { path: '/', app: openaiRoutes(deps) },
  ]);
});
afterAll(async () => {
  await acp?.close();
  await server?.close();
  await parley?.close();
});

const DIRECT = 'hello there [[route:direct]]';
const THINKING = /^The user wants an answer\. A first draft was \{"draft": true/;

async function overAcp<T>(op: (ctx: ClientContext, rc: RecordingClient) => Promise<T>): Promise<T> {
  const rc = recordingClient();
  return rc.app.connectWith(createHttpStream(`${server.url}/acp`), async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return op(ctx, rc);
  });
}

/** The text of the model's thought chunks in a session, of one role or all (Parley's own progress lines carry no role). */
function modelThoughts(rc: RecordingClient, sessionId: string, role?: string): string {
  const roleOf = (meta: unknown) => (meta as { parley?: { role?: string } } | undefined)?.parley?.role;
  return rc.notifications
    .filter(
      (n) =>
        n.sessionId === sessionId &&
        n.update.sessionUpdate === 'agent_thought_chunk' &&
        roleOf(n.update._meta) &&
        (!role || roleOf(n.update._meta) === role),
    )
    .map((n) => (n.update as { content: { type: string; text: string } }).content.text)
    .join('');
}

function answerText(rc: RecordingClient, sessionId: string): string {
  return rc.notifications
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update as { content: { type: string; text: string } }).content.text)
    .join('');
}

describe('ACP: agent_thought_chunk', () => {
  it("with _meta.parley.reasoning the model's reasoning streams as thought chunks, never in the answer", async () => {
    await overAcp(async (ctx, rc) => {
      const session = await ctx
        .buildSession({ cwd: '/tmp', mcpServers: [], _meta: { parley: { reasoning: true } } })
        .start();
      const response = await session.prompt(DIRECT);
      expect(response.stopReason).toBe('end_turn');
      const answer = answerText(rc, session.sessionId);
      expect(answer.length).toBeGreaterThan(0);
      // The direct answer streams: its reasoning arrives in pieces that add up to the whole text.
      expect(modelThoughts(rc, session.sessionId, 'default')).toBe(reasoningText(answer));
      // The router's structured call reasons too (its JSON answer is not what it reasoned about).
      expect(modelThoughts(rc, session.sessionId, 'router')).toMatch(THINKING);
      expect(answer).not.toContain('draft');
    });
  });

  it('without it (PARLEY_STREAM_REASONING off) no model thought is sent', async () => {
    await overAcp(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp').start();
      await session.prompt(DIRECT);
      expect(answerText(rc, session.sessionId).length).toBeGreaterThan(0);
      expect(modelThoughts(rc, session.sessionId)).toBe('');
    });
  });

  it('a reasoning flag that is not a boolean is invalid params', async () => {
    await overAcp(async (ctx) => {
      await expect(
        ctx.buildSession({ cwd: '/tmp', mcpServers: [], _meta: { parley: { reasoning: 'yes' } } }).start(),
      ).rejects.toThrow(/_meta\.parley\.reasoning must be true or false/);
    });
  });
});

describe('AG-UI: REASONING_* events', () => {
  async function run(parleyProps: Record<string, unknown>, query = DIRECT): Promise<BaseEvent[]> {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: query });
    const events: BaseEvent[] = [];
    await agent.runAgent(
      { runId: randomUUID(), forwardedProps: { parley: parleyProps } },
      { onEvent: ({ event }) => void events.push(event) },
    );
    return events;
  }

  it('reasoning opens, streams its content and closes before the answer; HttpAgent accepts the stream', async () => {
    const events = await run({ reasoning: true });
    const types = events.map((e) => e.type);
    const start = types.indexOf(EventType.REASONING_START);
    expect(start).toBeGreaterThan(-1);
    expect(types[start + 1]).toBe(EventType.REASONING_MESSAGE_START);
    const end = types.indexOf(EventType.REASONING_END);
    expect(types[end - 1]).toBe(EventType.REASONING_MESSAGE_END);
    expect(end).toBeLessThan(types.indexOf(EventType.TEXT_MESSAGE_START));
    // The last reasoning message is the answer's (the router's came first, closed by its usage event).
    const lastStart = types.lastIndexOf(EventType.REASONING_START);
    const thought = events
      .slice(lastStart)
      .filter((e) => e.type === EventType.REASONING_MESSAGE_CONTENT)
      .map((e) => (e as unknown as { delta: string }).delta)
      .join('');
    const answer = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as unknown as { delta: string }).delta)
      .join('');
    expect(thought).toMatch(THINKING);
    expect(thought).toBe(reasoningText(answer));
  });

  it('a planned run: every reasoning message is closed and the stream still ends well', async () => {
    const events = await run({ reasoning: true }, 'compare caching strategies [[route:plan]] [[steps:2]]');
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === EventType.REASONING_START).length).toBeGreaterThan(1);
    expect(types.filter((t) => t === EventType.REASONING_START).length).toBe(
      types.filter((t) => t === EventType.REASONING_END).length,
    );
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
  });

  it('off by default: no reasoning events', async () => {
    const events = await run({});
    expect(events.some((e) => String(e.type).startsWith('REASONING'))).toBe(false);
  });
});

describe('SSE: model.thought', () => {
  async function stream(body: Record<string, unknown>): Promise<{ type: string; role?: string; text?: string }[]> {
    const res = await fetch(`${server.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as { type: string; role?: string; text?: string });
  }

  it('reasoning: true streams model.thought events with the role; reasoning: false none', async () => {
    const on = await stream({ query: DIRECT, reasoning: true });
    const thoughts = on.filter((e) => e.type === 'model.thought');
    expect(thoughts.length).toBeGreaterThan(1);
    expect(new Set(thoughts.map((e) => e.role))).toEqual(new Set(['router', 'default']));
    expect(
      thoughts
        .filter((e) => e.role === 'default')
        .map((e) => e.text)
        .join(''),
    ).toMatch(THINKING);
    const off = await stream({ query: DIRECT, reasoning: false });
    expect(off.some((e) => e.type === 'model.thought')).toBe(false);
    expect(off.at(-1)?.type).toBe('run.finished');
  });

  it('a planned run: structured calls (verifier), tool-loop calls (specialist) and the streamed synthesis all report thoughts', async () => {
    const events = await stream({ query: 'compare caching strategies [[route:plan]] [[steps:2]]', reasoning: true });
    const roles = new Set(events.filter((e) => e.type === 'model.thought').map((e) => e.role));
    expect([...roles]).toEqual(expect.arrayContaining(['verifier', 'specialist', 'synthesizer']));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('a reasoning flag that is not a boolean is a 400', async () => {
    const res = await postJson(`${server.url}/stream`, { query: DIRECT, reasoning: 'yes' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^reasoning:/);
  });
});

describe('OpenAI-compatible stream: delta.reasoning_content', () => {
  it('parley.reasoning: the reasoning arrives in reasoning_content deltas, apart from the content', async () => {
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const collect = async (reasoning: boolean) => {
      const stream = await openai.chat.completions.create({
        model: 'parley',
        stream: true,
        messages: [{ role: 'user', content: DIRECT }],
        parley: { reasoning },
      } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
      let thinking = '';
      let content = '';
      for await (const c of stream) {
        const delta = c.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
        thinking += delta?.reasoning_content ?? '';
        content += delta?.content ?? '';
      }
      return { thinking, content };
    };
    const on = await collect(true);
    expect(on.content.length).toBeGreaterThan(0);
    expect(on.thinking).toMatch(THINKING);
    expect(on.thinking.endsWith(reasoningText(on.content))).toBe(true);
    expect(on.content).not.toContain('draft');
    expect((await collect(false)).thinking).toBe('');
  });
});

describe('PARLEY_STREAM_REASONING', () => {
  it('on: runs stream thoughts unless the request turns them off', async () => {
    const on = await createTestParley({
      profile: 'reasoning',
      roster: false,
      config: { engine: { streamReasoning: true } },
    });
    try {
      const thoughtsOf = async (request: { reasoning?: boolean }) => {
        const handle = on.engine.start({ query: DIRECT, protocol: 'test', ...request });
        await handle.result;
        const texts: string[] = [];
        for await (const e of handle.events()) if (e.type === 'model.thought') texts.push(e.text);
        return texts.join('');
      };
      expect(await thoughtsOf({})).toMatch(THINKING);
      expect(await thoughtsOf({ reasoning: false })).toBe('');
    } finally {
      await on.close();
    }
  });
});
