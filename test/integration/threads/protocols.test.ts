/**
 * Threads on every protocol (docs/threads.md): a second message in the same conversation, sent through
 * each protocol's own client, reaches the engine with the first turn — the planner's and the
 * specialist's model calls of the second run carry it (the scripted model's request log shows what
 * each call was sent). Also: callers are isolated, /api/threads lists, reads and deletes, and an
 * OpenAI client's resent messages are not doubled.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { HttpAgent } from '@ag-ui/client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ClientFactory } from '@a2a-js/sdk/client';
import { methods } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { aguiRoutes } from '../../../src/protocols/agui/index.ts';
import { sseRoutes, threadRoutes } from '../../../src/protocols/sse/index.ts';
import { openaiRoutes } from '../../../src/protocols/openai/index.ts';
import { a2aRoutes } from '../../../src/protocols/a2a/index.ts';
import { mcpRoutes } from '../../../src/protocols/mcp/index.ts';
import { acpRoutes, type AcpRoutes } from '../../../src/protocols/acp/index.ts';
import { callerOf } from '../../../src/http/auth.ts';
import { openKv, type Kv } from '../../../src/store/kv.ts';
import { createLmdbAcpSessionStore } from '../../../src/store/acp-sessions/lmdb.ts';
import { silentLogger } from '../../../src/log.ts';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { serveRoutes, type TestServer } from '../../support/http.ts';
import { collect, send, text } from '../../support/protocols/a2a-helpers.ts';
import { recordingClient } from '../../support/protocols/acp-client.ts';
import { readAll } from '../../support/protocols/sse-read.ts';

let parley: TestParley;
let open: TestServer;
let keyed: TestServer;
let acp: AcpRoutes;
let kv: Kv;
const KEY_A = 'thread-key-a';
const KEY_B = 'thread-key-b';

beforeAll(async () => {
  parley = await createTestParley();
  const deps = { engine: parley.engine, approvals: parley.approvals, config: parley.config, logger: silentLogger };
  // With a session store, as `parley serve` wires it: session/load continues a session on a new connection.
  kv = openKv(':memory:');
  const sessionStore = createLmdbAcpSessionStore(kv, { maxPerCaller: 100, maxAgeMs: 3_600_000 });
  acp = acpRoutes({
    engine: parley.engine,
    callerOf,
    sessionStore,
    threads: parley.threads,
  });
  const routes = (withAcp: boolean) => [
    { path: '/', app: sseRoutes(deps) },
    { path: '/', app: threadRoutes({ threads: parley.threads, logger: silentLogger }) },
    { path: '/', app: openaiRoutes(deps) },
    { path: '/', app: aguiRoutes(deps) },
    { path: '/', app: a2aRoutes({ ...deps, store: parley.store }) },
    { path: '/mcp', app: mcpRoutes({ ...deps, store: parley.store, version: 'test', callerOf }) },
    ...(withAcp ? [{ path: '/', app: acp.app }] : []),
  ];
  open = await serveRoutes(routes(true));
  keyed = await serveRoutes(routes(false), { apiKeys: [KEY_A, KEY_B] });
});
afterAll(async () => {
  await acp?.close();
  await open?.close();
  await keyed?.close();
  await parley?.close();
  await kv?.close();
});

/** A first turn that plans one step, and a follow-up whose calls must know it. */
const FIRST = (word: string) => `[[route:plan]] [[steps:1]] Remember the codeword ${word} for the analysis report`;
const SECOND = (word: string) =>
  `[[route:plan]] [[steps:1]] Which codeword ${word.toLowerCase()}-check did I give for the report?`;

const textOfBody = (body: unknown) => JSON.stringify((body as { messages?: unknown }).messages ?? []);

/** The second turn's planner and specialist calls: those whose query is the follow-up. */
function followUpCalls(word: string) {
  const marker = `${word.toLowerCase()}-check`;
  const calls = parley.scripted.requests.filter((r) => textOfBody(r.body).includes(marker));
  return {
    planner: calls.filter((r) => r.role === 'planner'),
    specialist: calls.filter((r) => r.role === 'specialist'),
  };
}

function expectFirstTurnIn(word: string) {
  const { planner, specialist } = followUpCalls(word);
  expect(planner.length, 'planner calls of the second turn').toBeGreaterThan(0);
  expect(specialist.length, 'specialist calls of the second turn').toBeGreaterThan(0);
  for (const r of [...planner, ...specialist]) expect(textOfBody(r.body)).toContain(word);
}

async function sse(base: string, body: Record<string, unknown>, key?: string) {
  const res = await fetch(`${base}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return readAll(res);
}

describe('the second turn carries the first, on every protocol', () => {
  it('SSE: threadId', async () => {
    const threadId = randomUUID();
    await sse(open.url, { query: FIRST('SSEWORD'), threadId });
    await sse(open.url, { query: SECOND('SSEWORD'), threadId });
    expectFirstTurnIn('SSEWORD');
  });

  it('MCP: ask with threadId', async () => {
    const client = new McpClient({ name: 'threads-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`)));
    const threadId = randomUUID();
    await client.callTool({ name: 'ask', arguments: { query: FIRST('MCPWORD'), threadId } });
    await client.callTool({ name: 'ask', arguments: { query: SECOND('MCPWORD'), threadId } });
    await client.close();
    expectFirstTurnIn('MCPWORD');
  });

  it('OpenAI: X-Parley-Thread-Id, with the resent messages not doubled', async () => {
    const client = new OpenAI({ baseURL: `${open.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const headers = { 'X-Parley-Thread-Id': randomUUID() };
    const first = FIRST('OAIWORD');
    const one = await client.chat.completions.create(
      { model: 'parley-orchestration', messages: [{ role: 'user', content: first }] },
      { headers },
    );
    const answer = one.choices[0]!.message.content!;
    await client.chat.completions.create(
      {
        model: 'parley-orchestration',
        messages: [
          { role: 'user', content: first },
          { role: 'assistant', content: answer },
          { role: 'user', content: SECOND('OAIWORD') },
        ],
      },
      { headers },
    );
    expectFirstTurnIn('OAIWORD');
    // The synthesizer sees the first turn once: the stored turn, not the resent copy beside it.
    const synth = followUpCalls('OAIWORD');
    const synthCalls = parley.scripted.requests.filter(
      (r) => r.role === 'synthesizer' && textOfBody(r.body).includes('oaiword-check'),
    );
    expect(synth.planner.length).toBeGreaterThan(0);
    expect(synthCalls).toHaveLength(1);
    const messages = (synthCalls[0]!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages.filter((m) => m.role === 'user' && m.content === first)).toHaveLength(1);
  });

  it('AG-UI: threadId, the client resending its messages', async () => {
    const agent = new HttpAgent({ url: `${open.url}/ag-ui` });
    agent.addMessage({ id: randomUUID(), role: 'user', content: FIRST('AGUIWORD') });
    await agent.runAgent({ runId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: 'user', content: SECOND('AGUIWORD') });
    await agent.runAgent({ runId: randomUUID() });
    expectFirstTurnIn('AGUIWORD');
    // Stored before the run's end went out: readable the moment the stream ends.
    const stored = await parley.threads.getThread('anonymous', agent.threadId);
    expect(stored?.turns.map((t) => t.user)).toEqual([FIRST('AGUIWORD'), SECOND('AGUIWORD')]);
  });

  it('A2A: contextId', async () => {
    const client = await new ClientFactory().createFromUrl(open.url);
    const contextId = randomUUID();
    await collect(client.sendMessageStream(send([text(FIRST('A2AWORD'))], { contextId })));
    await collect(client.sendMessageStream(send([text(SECOND('A2AWORD'))], { contextId })));
    expectFirstTurnIn('A2AWORD');
  });

  it('ACP: sessionId', async () => {
    const rc = recordingClient();
    await rc.app.connectWith(createHttpStream(`${open.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      expect((await session.prompt(FIRST('ACPWORD'))).stopReason).toBe('end_turn');
      expect((await session.prompt(SECOND('ACPWORD'))).stopReason).toBe('end_turn');
    });
    expectFirstTurnIn('ACPWORD');
  });
});

/** Every role a planned run calls: each must see the first turn when a follow-up continues its thread. */
const ROLES = ['router', 'planner', 'specialist', 'verifier', 'synthesizer'] as const;

/** Each role's calls of the follow-up (found by its marker) carry the first turn's codeword. */
function expectEveryRoleCarries(word: string) {
  const marker = `${word.toLowerCase()}-check`;
  const calls = parley.scripted.requests.filter((r) => textOfBody(r.body).includes(marker));
  for (const role of ROLES) {
    const ofRole = calls.filter((r) => r.role === role);
    expect(ofRole.length, `${role} calls of the second turn`).toBeGreaterThan(0);
    for (const r of ofRole) expect(textOfBody(r.body), `${role} sees the first turn`).toContain(word);
  }
}

describe('a run that named no thread continues under the threadId it announced, on every protocol', () => {
  it('SSE: run.started threadId', async () => {
    const first = await sse(open.url, { query: FIRST('SSEANNOUNCED') });
    const started = JSON.parse(first.find((m) => m.event === 'run.started')!.data) as { threadId: string };
    expect(started.threadId).toBeTruthy();
    await sse(open.url, { query: SECOND('SSEANNOUNCED'), threadId: started.threadId });
    expectEveryRoleCarries('SSEANNOUNCED');
  });

  it('MCP: ask answers its threadId', async () => {
    const client = new McpClient({ name: 'threads-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`)));
    const first = await client.callTool({ name: 'ask', arguments: { query: FIRST('MCPANNOUNCED') } });
    const { threadId } = first.structuredContent as { threadId: string };
    expect(threadId).toBeTruthy();
    await client.callTool({ name: 'ask', arguments: { query: SECOND('MCPANNOUNCED'), threadId } });
    await client.close();
    expectEveryRoleCarries('MCPANNOUNCED');
  });

  it('OpenAI: the completion names its threadId; the follow-up sends only the new message', async () => {
    const client = new OpenAI({ baseURL: `${open.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const one = await client.chat.completions.create({
      model: 'parley',
      messages: [{ role: 'user', content: FIRST('OAIANNOUNCED') }],
    });
    const { threadId } = (one as unknown as { parley: { threadId: string } }).parley;
    expect(threadId).toBeTruthy();
    await client.chat.completions.create(
      { model: 'parley', messages: [{ role: 'user', content: SECOND('OAIANNOUNCED') }] },
      { headers: { 'X-Parley-Thread-Id': threadId } },
    );
    expectEveryRoleCarries('OAIANNOUNCED');
  });

  it('AG-UI: RUN_STARTED threadId, continued by another client that resends nothing', async () => {
    const first = new HttpAgent({ url: `${open.url}/ag-ui` });
    first.addMessage({ id: randomUUID(), role: 'user', content: FIRST('AGUIANNOUNCED') });
    let announced = '';
    await first.runAgent(
      { runId: randomUUID() },
      { onRunStartedEvent: ({ event }) => void (announced = event.threadId) },
    );
    expect(announced).toBeTruthy();
    const second = new HttpAgent({ url: `${open.url}/ag-ui`, threadId: announced });
    second.addMessage({ id: randomUUID(), role: 'user', content: SECOND('AGUIANNOUNCED') });
    await second.runAgent({ runId: randomUUID() });
    expectEveryRoleCarries('AGUIANNOUNCED');
  });

  it('A2A: the task of a message without contextId names one; a new message with it continues', async () => {
    const client = await new ClientFactory().createFromUrl(open.url);
    const events = await collect(client.sendMessageStream(send([text(FIRST('A2AANNOUNCED'))])));
    const first = events[0]?.payload;
    if (first?.$case !== 'task') throw new Error('a stream must start with the task');
    const contextId = first.value.contextId;
    expect(contextId).toBeTruthy();
    await collect(client.sendMessageStream(send([text(SECOND('A2AANNOUNCED'))], { contextId })));
    expectEveryRoleCarries('A2AANNOUNCED');
  });

  it('ACP: the session id, loaded on a new connection', async () => {
    let sessionId = '';
    const rc = recordingClient();
    await rc.app.connectWith(createHttpStream(`${open.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const session = await ctx.buildSession('/tmp').start();
      sessionId = session.sessionId;
      expect((await session.prompt(FIRST('ACPANNOUNCED'))).stopReason).toBe('end_turn');
    });
    const again = recordingClient();
    await again.app.connectWith(createHttpStream(`${open.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request(methods.agent.session.load, { sessionId, cwd: '/tmp', mcpServers: [] });
      const next = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: SECOND('ACPANNOUNCED') }],
      });
      expect(next.stopReason).toBe('end_turn');
    });
    expectEveryRoleCarries('ACPANNOUNCED');
  });
});

describe('threads belong to their caller', () => {
  const get = (path: string, key: string, method = 'GET') =>
    fetch(`${keyed.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });

  it("another caller using the same thread id starts a fresh thread and never sees the first's turns", async () => {
    const threadId = `shared-${randomUUID()}`;
    await sse(keyed.url, { query: FIRST('ALICEWORD'), threadId }, KEY_A);
    await sse(keyed.url, { query: SECOND('BOBWORD'), threadId }, KEY_B);
    const { planner, specialist } = followUpCalls('BOBWORD');
    expect(planner.length + specialist.length).toBeGreaterThan(0);
    for (const r of [...planner, ...specialist]) expect(textOfBody(r.body)).not.toContain('ALICEWORD');

    const aliceThread = (await (await get(`/api/threads/${threadId}`, KEY_A)).json()) as { turns: { user: string }[] };
    expect(aliceThread.turns.map((t) => t.user)).toEqual([FIRST('ALICEWORD')]);
    const bobThread = (await (await get(`/api/threads/${threadId}`, KEY_B)).json()) as { turns: { user: string }[] };
    expect(bobThread.turns.map((t) => t.user)).toEqual([SECOND('BOBWORD')]);
  });

  it('/api/threads lists, reads and deletes only the caller’s own threads', async () => {
    const mine = `list-${randomUUID()}`;
    await sse(keyed.url, { query: FIRST('LISTWORD'), threadId: mine }, KEY_A);

    const listA = (await (await get('/api/threads', KEY_A)).json()) as {
      threads: { threadId: string; turnCount: number }[];
    };
    expect(listA.threads[0]).toMatchObject({ threadId: mine, turnCount: 1 });
    const listB = (await (await get('/api/threads', KEY_B)).json()) as { threads: { threadId: string }[] };
    expect(listB.threads.map((t) => t.threadId)).not.toContain(mine);

    const read = (await (await get(`/api/threads/${mine}`, KEY_A)).json()) as {
      turns: { user: string; answer: string; status: string; steps: { specialist: string; status: string }[] }[];
    };
    expect(read.turns[0]).toMatchObject({ user: FIRST('LISTWORD'), status: 'completed' });
    expect(read.turns[0]!.answer.length).toBeGreaterThan(0);
    expect(read.turns[0]!.steps.length).toBe(1);

    // Bob cannot read or delete it: 404 like an unknown thread, and it is still there.
    const bobRead = await get(`/api/threads/${mine}`, KEY_B);
    expect(bobRead.status).toBe(404);
    expect(await bobRead.json()).toEqual({ error: { code: 'not_found', message: `No thread with id "${mine}".` } });
    expect((await get(`/api/threads/${mine}`, KEY_B, 'DELETE')).status).toBe(404);
    expect((await get(`/api/threads/${mine}`, KEY_A)).status).toBe(200);

    expect((await get(`/api/threads/${mine}`, KEY_A, 'DELETE')).status).toBe(204);
    expect((await get(`/api/threads/${mine}`, KEY_A)).status).toBe(404);
    expect((await get(`/api/threads/${mine}`, KEY_A, 'DELETE')).status).toBe(404);
  });

  it('/api/threads refuses a bad query with 400 and needs a key', async () => {
    const bad = await get('/api/threads?limit=0', KEY_A);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    expect((await get('/api/threads?color=red', KEY_A)).status).toBe(400);
    expect((await fetch(`${keyed.url}/api/threads`)).status).toBe(401);
  });
});
