/**
 * ACP in-process: the SDK's ClientApp connected straight to Parley's AgentApp, in front of the real
 * engine (scripted model over HTTP, Kuzu in memory, ApprovalBroker, a real MCP fixture server).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods, type ClientContext, type PromptResponse, type RequestError } from '@agentclientprotocol/sdk';
import { createAcpAgent } from '../../../../src/protocols/acp/index.ts';
import type { GraphEvent } from '../../../../src/graph/run/events.ts';
import { createTestParley, type TestParley } from '../../../support/engine.ts';
import type { FixtureHttpServer } from '../../../fixtures/tools/http-server.ts';
import { scribePrompt, startAcpTestParley, type AcpTestParley } from '../../../fixtures/acp/test-parley.ts';
import {
  messageText,
  recordingClient,
  select,
  statuses,
  updatesOf,
  type RecordingClient,
} from '../../../support/protocols/acp-client.ts';
import { expectAdvice, expectVerdictData } from '../../../support/council-answer.ts';
import { STANDUP_REFERENCE, STANDUP_SOURCE } from '../../../support/protocols/citing.ts';
import { expectNumbered, expectUncited } from '../../../support/protocols/citing-expect.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

let acp: AcpTestParley;
let fixture: FixtureHttpServer;
let parley: TestParley;

beforeAll(async () => {
  acp = await startAcpTestParley();
  ({ parley, fixture } = acp);
});
afterAll(async () => {
  await acp?.close();
});

/** Connects a fresh recording client to a fresh agent (one per connection), initialized. */
async function withClient<T>(
  op: (ctx: ClientContext, rc: RecordingClient) => Promise<T>,
  rc = recordingClient(),
): Promise<T> {
  const agentApp = createAcpAgent({ engine: parley.engine });
  return rc.app.connectWith(agentApp, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    return op(ctx, rc);
  });
}

const runIdOf = (response: PromptResponse) => (response._meta as { parley: { runId: string } }).parley.runId;

async function eventsOf(runId: string): Promise<GraphEvent[]> {
  const events: GraphEvent[] = [];
  for await (const e of parley.engine.get(runId)!.events()) events.push(e);
  return events;
}

async function errorOf(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (err) {
    return err as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('ACP in-process against the real engine', () => {
  it('initialize names Parley from package.json; session/new offers the run modes', async () => {
    await client(async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      expect(init.agentInfo).toMatchObject({ name: pkg.name, version: pkg.version });
      expect(init.agentCapabilities).toMatchObject({
        loadSession: false,
        promptCapabilities: { embeddedContext: true },
      });
      const session = await ctx.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      expect(session.modes?.currentModeId).toBe('auto');
      expect(session.modes?.availableModes.map((m) => m.id)).toEqual([
        'auto',
        'direct',
        'orchestrate',
        'council',
        'dynamic',
        'hybrid',
      ]);
    });
  });

  it('mode council: the message is the advice; the verdict with its confidence stays on the events', async () => {
    await withClient(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp/project').start();
      await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'council' });
      const response = await session.prompt('Should we move the team wiki into the monorepo?');
      expect(response.stopReason).toBe('end_turn');
      const runId = runIdOf(response);
      const result = await parley.engine.get(runId)!.result;
      expect(result.status).toBe('completed');
      const message = messageText(rc, session.sessionId);
      expect(message).toBe(result.answer);
      expectAdvice(message);
      const verdict = (await eventsOf(runId)).find((e) => e.type === 'council.stage' && e.stage === 'verdict');
      expectVerdictData(verdict?.type === 'council.stage' ? verdict.verdict : undefined);
    });
  });

  it('a prompt runs the graph to completion: plan entries follow the steps, the answer streams, end_turn', async () => {
    await withClient(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp/project').start();
      await ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'orchestrate' });
      const response = await session.prompt(
        '[[route:plan]] [[steps:2]] Compare two caching strategies and summarize them',
      );
      expect(response.stopReason).toBe('end_turn');

      const runId = runIdOf(response);
      const result = await parley.engine.get(runId)!.result;
      expect(result.status).toBe('completed');
      const started = (await eventsOf(runId))[0]!;
      expect(started).toMatchObject({
        type: 'run.started',
        protocol: 'acp',
        threadId: session.sessionId,
        mode: 'orchestrate',
      });

      const plans = updatesOf(rc, session.sessionId, 'plan');
      expect(plans.length).toBeGreaterThanOrEqual(3);
      expect(statuses(plans[0]!.entries)).toEqual(['pending', 'pending']);
      expect(plans.some((p) => p.entries.some((e) => e.status === 'in_progress'))).toBe(true);
      expect(statuses(plans.at(-1)!.entries)).toEqual(['completed', 'completed']);

      // The client shows exactly the engine's answer, after the plan finished.
      expect(messageText(rc, session.sessionId)).toBe(result.answer);
      const kinds = rc.notifications.map((n) => n.update.sessionUpdate);
      expect(kinds.lastIndexOf('plan')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
      session.dispose();
    });
  });

  it('a follow-up prompt in the same session carries the earlier turn to the engine', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const first = await session.prompt('[[route:direct]] Remember the codeword aubergine');
      const firstAnswer = (await parley.engine.get(runIdOf(first))!.result).answer!;
      const second = await session.prompt('[[route:direct]] What was the codeword?');
      const runId = runIdOf(second);
      const sent = parley.scripted.requests.filter((r) => r.runId === runId);
      expect(sent.length).toBeGreaterThan(0);
      const bodies = JSON.stringify(sent.map((r) => r.body));
      expect(bodies).toContain('Remember the codeword aubergine');
      expect(bodies).toContain(JSON.stringify(firstAnswer).slice(1, 40));
    });
  });
});

describe('ACP permissions resolve the approval broker', () => {
  const noteTool = (path: string) => scribePrompt('write_note', { path, content: 'hello' });

  it('allow once: the permission request names the call, the tool runs, the broker records actor "acp"', async () => {
    await withClient(async (ctx, rc) => {
      rc.answer = () => select('allow_once');
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(noteTool('acp-allowed'));
      expect(response.stopReason).toBe('end_turn');

      expect(rc.permissions).toHaveLength(1);
      const asked = rc.permissions[0]!;
      expect(asked.sessionId).toBe(session.sessionId);
      expect(asked.toolCall.rawInput).toEqual({ path: 'acp-allowed', content: 'hello' });
      // write_note is destructive: no "always" for it.
      expect(asked.options.map((o) => o.optionId)).toEqual(['allow_once', 'reject_once']);
      expect(fixture.state.writes.filter((w) => w.path === 'acp-allowed')).toHaveLength(1);

      const calls = updatesOf(rc, session.sessionId, 'tool_call_update').filter(
        (u) => u.toolCallId === asked.toolCall.toolCallId,
      );
      expect(calls.at(-1)).toMatchObject({ status: 'completed' });
      expect(JSON.stringify(calls.at(-1)!.content)).toContain('wrote 5 chars to acp-allowed');

      const resolved = (await eventsOf(runIdOf(response))).find((e) => e.type === 'approval.resolved');
      expect(resolved).toMatchObject({ outcome: { actor: 'acp', resolvedBy: 'human' } });
    });
  });

  it('reject once: the tool does not run, the call shows failed, the turn still ends normally', async () => {
    await withClient(async (ctx, rc) => {
      rc.answer = () => select('reject_once');
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(noteTool('acp-rejected'));
      expect(response.stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(1);
      expect(fixture.state.writes.filter((w) => w.path === 'acp-rejected')).toHaveLength(0);
      const id = rc.permissions[0]!.toolCall.toolCallId;
      const last = updatesOf(rc, session.sessionId, 'tool_call_update')
        .filter((u) => u.toolCallId === id)
        .at(-1);
      expect(last).toMatchObject({ status: 'failed', _meta: { parley: { status: 'denied' } } });
    });
  });

  it('allow always: later calls of that tool in the session run without asking; a new session asks again', async () => {
    const readNote = scribePrompt('read_note', { path: 'always' });
    await withClient(async (ctx, rc) => {
      rc.answer = () => select('allow_always');
      const session = await ctx.buildSession('/tmp').start();
      expect((await session.prompt(readNote)).stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(1);
      expect(rc.permissions[0]!.options.map((o) => o.optionId)).toEqual(['allow_once', 'allow_always', 'reject_once']);

      const readsBefore = fixture.state.calls.filter((c) => c === 'read_note').length;
      const second = await session.prompt(readNote);
      expect(second.stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(1);
      expect(fixture.state.calls.filter((c) => c === 'read_note').length).toBe(readsBefore + 1);
      const resolved = (await eventsOf(runIdOf(second))).find((e) => e.type === 'approval.resolved');
      expect(resolved).toMatchObject({ outcome: { actor: 'acp', decision: { kind: 'tool' } } });

      const other = await ctx.buildSession('/tmp').start();
      expect((await other.prompt(readNote)).stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(2);
    });
  });
});

describe('ACP: elicitations from MCP servers', () => {
  it('a client that can show forms gets elicitation/create; its answer reaches the tool', async () => {
    const rc = recordingClient();
    rc.answerElicitation = () => ({ action: 'accept', content: { city: 'Paris' } });
    await rc.app.connectWith(createAcpAgent({ engine: parley.engine }), async (ctx) => {
      await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { elicitation: { form: {} } },
      });
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt(scribePrompt('ask_city', {}));
      expect(response.stopReason).toBe('end_turn');
      expect(rc.elicitations).toHaveLength(1);
      expect(rc.elicitations[0]).toMatchObject({
        mode: 'form',
        sessionId: session.sessionId,
        requestedSchema: { properties: { city: { type: 'string' } } },
      });
      const done = updatesOf(rc, session.sessionId, 'tool_call_update').at(-1);
      expect(JSON.stringify(done?.content)).toContain('city: Paris');
      const resolved = (await eventsOf(runIdOf(response))).find((e) => e.type === 'approval.resolved');
      expect(resolved).toMatchObject({
        outcome: { actor: 'acp', decision: { kind: 'elicitation', action: 'accept' } },
      });
    });
  });

  it('a client without forms is told the request id; another channel answers it', async () => {
    await withClient(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp').start();
      const pending = session.prompt(scribePrompt('ask_city', {}));
      await rc.waitFor(
        (u) =>
          u.sessionUpdate === 'agent_thought_chunk' &&
          u.content.type === 'text' &&
          u.content.text.includes('/api/approve'),
      );
      const request = parley.approvals.listPending().find((r) => r.kind === 'elicitation')!;
      expect(JSON.stringify(updatesOf(rc, session.sessionId, 'agent_thought_chunk'))).toContain(request.id);
      expect(
        (
          await parley.approvals.resolve(
            request.id,
            { kind: 'elicitation', action: 'accept', content: { city: 'Rome' } },
            'test',
          )
        ).ok,
      ).toBe(true);
      expect((await pending).stopReason).toBe('end_turn');
      expect(rc.elicitations).toHaveLength(0);
      expect(JSON.stringify(updatesOf(rc, session.sessionId, 'tool_call_update').at(-1)?.content)).toContain(
        'city: Rome',
      );
    });
  });
});

describe('ACP sessions and prompt content', () => {
  it('embedded text resources and resource links become part of the query', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt([
        { type: 'text', text: '[[route:direct]] Summarize these' },
        { type: 'resource', resource: { uri: 'file:///tmp/notes.txt', text: 'alpha beta gamma' } },
        { type: 'resource_link', uri: 'file:///tmp/other.md', name: 'other.md' },
      ]);
      const started = (await eventsOf(runIdOf(response)))[0];
      expect(started).toMatchObject({ type: 'run.started' });
      const query = (started as Extract<GraphEvent, { type: 'run.started' }>).query;
      expect(query).toContain('Summarize these');
      expect(query).toContain('file:///tmp/notes.txt');
      expect(query).toContain('alpha beta gamma');
      expect(query).toContain('[other.md](file:///tmp/other.md)');
    });
  });

  it('session/close forgets the session', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      await ctx.request(methods.agent.session.close, { sessionId: session.sessionId });
      const err = await errorOf(
        ctx.request(methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: 'text', text: 'hi' }],
        }),
      );
      expect(err.code).toBe(-32002);
    });
  });
});

describe('ACP: citations (session/new _meta.parley.citations)', () => {
  // One scribe step reading notes/standup.md (read_note asks first in this rig: the client allows once).
  const READ_PROMPT = `${scribePrompt('read_note', { path: 'notes/standup.md' })} [[steps:1]] [[planspecialist:scribe]] [[verify:0.95]]`;
  const SCRIBE_SOURCE = { ...STANDUP_SOURCE, specialist: 'scribe' };
  type Provenance = { runId: string; sources?: unknown[]; references?: unknown[] };

  const readNotes = (options?: Record<string, unknown>) =>
    withClient(async (ctx, rc) => {
      const session = await ctx
        .buildSession({ cwd: '/tmp', mcpServers: [], ...(options ? { _meta: { parley: options } } : {}) })
        .start();
      const response = await session.prompt(READ_PROMPT);
      expect(response.stopReason).toBe('end_turn');
      expect(rc.permissions).toHaveLength(1);
      const said = messageText(rc, session.sessionId);
      const provenance = (response._meta as { parley: Provenance }).parley;
      expect((await parley.engine.get(provenance.runId)!.result).answer).toBe(said);
      return { said, provenance };
    });

  it('"numbered": the message cites [1] and lists standup.md; the stop response\'s _meta carries the references', async () => {
    const { said, provenance } = await readNotes({ citations: 'numbered' });
    expectNumbered(said);
    expect(provenance.references).toEqual([STANDUP_REFERENCE]);
    expect(provenance.sources).toEqual([SCRIBE_SOURCE]);
  });

  it('without it: no [n] in the message; the file read still comes as data, with no references', async () => {
    const { said, provenance } = await readNotes();
    expectUncited(said);
    expect(provenance.sources).toEqual([SCRIBE_SOURCE]);
    expect(provenance.references).toBeUndefined();
  });

  it('an unknown style is -32602 naming _meta.parley.citations', async () => {
    await withClient(async (ctx) => {
      const err = await errorOf(
        ctx.request(methods.agent.session.new, {
          cwd: '/tmp',
          mcpServers: [],
          _meta: { parley: { citations: 'footnotes' } },
        }),
      );
      expect(err.code).toBe(-32602);
      expect(err.message).toContain('_meta.parley.citations must be one of none, numbered');
    });
  });
});

describe('ACP cancellation', () => {
  it('session/cancel stops the run mid-model-call; the prompt ends "cancelled"', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const before = parley.scripted.requests.length;
      const pending = session.prompt('[[route:plan]] [[fault:hang]] this never answers');
      await expect.poll(() => parley.scripted.requests.length).toBeGreaterThan(before);
      await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
      const response = await pending;
      expect(response.stopReason).toBe('cancelled');
      const result = await parley.engine.get(runIdOf(response))!.result;
      expect(result.status).toBe('cancelled');
    });
  });

  it('a second prompt while one runs in the same session is refused (-32600); the first goes on', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const before = parley.scripted.requests.length;
      const first = session.prompt('[[route:plan]] [[fault:hang]] still thinking');
      await expect.poll(() => parley.scripted.requests.length).toBeGreaterThan(before);
      const second = await errorOf(
        ctx.request(methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: 'text', text: 'me too' }],
        }),
      );
      expect(second.code).toBe(-32600);
      expect(parley.engine.activeRuns).toBe(1);
      await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
      expect((await first).stopReason).toBe('cancelled');
    });
  });

  it('the client going away (connection closed mid-run) cancels its run', async () => {
    const rc = recordingClient();
    const connection = rc.app.connect(createAcpAgent({ engine: parley.engine }));
    await connection.agent.request(methods.agent.initialize, { protocolVersion: 1 });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
    const before = parley.scripted.requests.length;
    const prompt = connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: '[[fault:hang]] hangs' }],
    });
    const outcome = prompt.then(
      () => 'answered',
      () => 'rejected',
    );
    await expect.poll(() => parley.scripted.requests.length).toBeGreaterThan(before);
    const runId = parley.scripted.requests.at(-1)!.runId!;
    connection.close();
    expect(await outcome).toBe('rejected');
    expect((await parley.engine.get(runId)!.result).status).toBe('cancelled');
  });

  it('cancel while a permission request is open: the client answers "cancelled", nothing is written', async () => {
    await withClient(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp').start();
      let asked!: () => void;
      const wasAsked = new Promise<void>((r) => (asked = r));
      let release!: () => void;
      const cancelled = new Promise<void>((r) => (release = r));
      rc.answer = async () => {
        asked();
        await cancelled;
        return { outcome: { outcome: 'cancelled' } };
      };
      const pending = session.prompt(scribePrompt('write_note', { path: 'acp-cancelled', content: 'x' }));
      await wasAsked;
      await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
      release();
      const response = await pending;
      expect(response.stopReason).toBe('cancelled');
      expect(fixture.state.writes.filter((w) => w.path === 'acp-cancelled')).toHaveLength(0);
      expect((await parley.engine.get(runIdOf(response))!.result).status).toBe('cancelled');
    });
  });
});

describe('ACP bad requests get JSON-RPC errors and change nothing', () => {
  it('a request before initialize is refused (-32600)', async () => {
    await client(async (ctx) => {
      const err = await errorOf(ctx.request(methods.agent.session.new, { cwd: '/tmp', mcpServers: [] }));
      expect(err.code).toBe(-32600);
    });
  });

  it('the -32602 for an unknown mode, the modes a session offers and docs/protocols/acp.md name the same set', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const offered = session.modes!.availableModes.map((m) => m.id);
      const refused = await errorOf(
        ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'turbo' }),
      );
      const named = /use (.+)$/.exec(refused.message)![1]!.split(/, | or /);
      const docs = readFileSync(new URL('../../../../docs/protocols/acp.md', import.meta.url), 'utf8');
      const row = docs.split('\n').find((l) => l.startsWith('| `session/set_mode` |'))!;
      const documented = [...row.split('|')[2]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
      expect(named).toEqual(offered);
      expect(documented).toEqual(offered);
      expect(docs).toContain(`a select of the ${['', '', '', '', 'four', 'five', 'six'][offered.length]} modes`);
    });
  });

  it('unknown method, invalid params, unknown session, unknown mode, relative cwd, unsupported content', async () => {
    await withClient(async (ctx, rc) => {
      const runsBefore = parley.engine.retainedRuns;
      expect((await errorOf(ctx.request('session/teleport', {}))).code).toBe(-32601);
      expect((await errorOf(ctx.request('session/prompt', { sessionId: 42 }))).code).toBe(-32602);
      const unknown = await errorOf(
        ctx.request(methods.agent.session.prompt, {
          sessionId: 'no-such-session',
          prompt: [{ type: 'text', text: 'hi' }],
        }),
      );
      expect(unknown).toMatchObject({ code: -32002, data: { sessionId: 'no-such-session' } });
      expect(
        (await errorOf(ctx.request(methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] }))).code,
      ).toBe(-32602);

      const session = await ctx.buildSession('/tmp').start();
      const mode = await errorOf(
        ctx.request(methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'turbo' }),
      );
      expect(mode.code).toBe(-32602);
      expect(mode.message).toContain('auto, direct, orchestrate, council, dynamic or hybrid');
      const audio = await errorOf(session.prompt({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }));
      expect(audio.code).toBe(-32602);
      expect(parley.engine.retainedRuns).toBe(runsBefore);

      // The connection is still good.
      expect((await session.prompt('[[route:direct]] hello there')).stopReason).toBe('end_turn');
      expect(messageText(rc, session.sessionId).length).toBeGreaterThan(0);
    });
  });
});

describe('ACP: client MCP servers for a client that is not local', () => {
  it('a stdio server is refused (it would run on Parley\'s host), "${…}" is never expanded, nothing starts', async () => {
    await withClient(async (ctx) => {
      const stdio = await errorOf(
        ctx.request(methods.agent.session.new, {
          cwd: '/tmp',
          mcpServers: [{ name: 'shell', command: 'sh', args: ['-c', 'echo pwned'], env: [] }],
        }),
      );
      expect(stdio.code).toBe(-32602);
      expect(stdio.message).toContain('stdio servers are started only for a local editor');
      const expanded = await errorOf(
        ctx.request(methods.agent.session.new, {
          cwd: '/tmp',
          mcpServers: [{ type: 'http', name: 'leak', url: 'http://127.0.0.1:9/?k=${OPENAI_API_KEY}', headers: [] }],
        }),
      );
      expect(expanded.code).toBe(-32602);
      expect(expanded.message).toContain('is not expanded');
      const twice = await errorOf(
        ctx.request(methods.agent.session.new, {
          cwd: '/tmp',
          mcpServers: [
            { type: 'http', name: 'a', url: 'http://127.0.0.1:9/mcp', headers: [] },
            { type: 'http', name: 'a', url: 'http://127.0.0.1:9/mcp', headers: [] },
          ],
        }),
      );
      expect(twice.message).toContain('two MCP servers are named "a"');
    });
  });
});

/** A client that has not initialized yet. */
function client<T>(op: (ctx: ClientContext) => Promise<T>): Promise<T> {
  return recordingClient().app.connectWith(createAcpAgent({ engine: parley.engine }), op);
}

describe('ACP: a failed run', () => {
  it('a failed run is a JSON-RPC internal error naming the run; the session stays usable', async () => {
    await withClient(async (ctx) => {
      const session = await ctx.buildSession('/tmp').start();
      const err = await errorOf(session.prompt('[[route:direct]] [[fault:500]] this model call fails'));
      expect(err.code).toBe(-32603);
      expect(err.message).toContain('the run failed');
      const { runId } = err.data as { runId: string };
      expect((await parley.engine.get(runId)!.result).status).toBe('failed');
      expect((await session.prompt('[[route:direct]] hello')).stopReason).toBe('end_turn');
    });
  });
});

describe('ACP: a blocked run', () => {
  let limited: TestParley;
  beforeAll(async () => {
    // One model call per run: the router's call uses it, the next is refused by the usage guard.
    limited = await createTestParley({ config: { budget: { run: { modelCalls: 1 } } } });
  });
  afterAll(async () => {
    await limited?.close();
  });

  const connect = <T>(op: (ctx: ClientContext, rc: RecordingClient) => Promise<T>) => {
    const rc = recordingClient();
    return rc.app.connectWith(createAcpAgent({ engine: limited.engine }), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      return op(ctx, rc);
    });
  };

  it('a run blocked by its budget ends with stopReason "refusal" and says why', async () => {
    await connect(async (ctx, rc) => {
      const session = await ctx.buildSession('/tmp').start();
      const response = await session.prompt('[[route:plan]] [[steps:2]] Compare two caching strategies');
      expect(response.stopReason).toBe('refusal');
      const result = await limited.engine.get(runIdOf(response))!.result;
      expect(result.status).toBe('blocked');
      expect(messageText(rc, session.sessionId)).toBe(`Parley stopped: ${result.error}`);
      expect(response._meta).toMatchObject({ parley: { status: 'blocked', error: result.error } });
    });
  });
});
