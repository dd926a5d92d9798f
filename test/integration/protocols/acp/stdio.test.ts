/**
 * ACP over real stdio: a separate Node process (test/fixtures/acp/stdio-agent.ts: the real engine
 * behind serveAcpStdio) driven by the SDK's ClientApp over ndJsonStream, as an editor drives `parley acp`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods, ndJsonStream, type ClientContext } from '@agentclientprotocol/sdk';
import { scribePrompt } from '../../../fixtures/acp/test-parley.ts';
import {
  messageText,
  recordingClient,
  select,
  statuses,
  updatesOf,
  type RecordingClient,
} from '../../../support/protocols/acp-client.ts';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

interface Agent {
  child: ChildProcessWithoutNullStreams;
  /** Everything the agent wrote to stdout, as text. */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function spawnAgent(): Agent {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/acp/stdio-agent.ts'], {
    cwd: root,
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

let agent: Agent;
let rc: RecordingClient;
let ctx: ClientContext;
let finishClient: () => void;
let clientDone: Promise<void>;

beforeAll(async () => {
  agent = spawnAgent();
  rc = recordingClient();
  const stream = ndJsonStream(
    Writable.toWeb(agent.child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>,
  );
  const ready = new Promise<ClientContext>((resolve) => {
    clientDone = rc.app.connectWith(stream, async (c) => {
      resolve(c);
      await new Promise<void>((r) => (finishClient = r));
    });
  });
  ctx = await ready;
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  expect(init.agentInfo?.name).toBe('parley');
}, 60_000);

afterAll(async () => {
  finishClient?.();
  await clientDone?.catch(() => undefined);
  agent?.child.stdin.end();
  const timer = setTimeout(() => agent.child.kill('SIGKILL'), 10_000);
  await agent?.exited;
  clearTimeout(timer);
});

describe('ACP over stdio (spawned process, real engine)', () => {
  it('a prompt runs to completion with plan updates and a streamed answer', async () => {
    const session = await ctx.buildSession(root).start();
    const response = await session.prompt(
      '[[route:plan]] [[steps:2]] Compare two caching strategies and summarize them',
    );
    expect(response.stopReason).toBe('end_turn');
    const plans = updatesOf(rc, session.sessionId, 'plan');
    expect(statuses(plans[0]!.entries)).toEqual(['pending', 'pending']);
    expect(statuses(plans.at(-1)!.entries)).toEqual(['completed', 'completed']);
    expect(messageText(rc, session.sessionId)).toContain('Compare two caching strategies');
    session.dispose();
  });

  it('a permission round-trip runs the approved tool in the agent process', async () => {
    rc.answer = () => select('allow_once');
    const session = await ctx.buildSession(root).start();
    const before = rc.permissions.length;
    const response = await session.prompt(scribePrompt('write_note', { path: 'stdio-note', content: 'hello' }));
    expect(response.stopReason).toBe('end_turn');
    expect(rc.permissions.length).toBe(before + 1);
    const id = rc.permissions.at(-1)!.toolCall.toolCallId;
    const done = updatesOf(rc, session.sessionId, 'tool_call_update')
      .filter((u) => u.toolCallId === id)
      .at(-1);
    expect(done).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(done!.content)).toContain('wrote 5 chars to stdio-note');
  });

  it('session/cancel ends a hanging run with stopReason "cancelled"', async () => {
    const session = await ctx.buildSession(root).start();
    const pending = session.prompt('[[route:plan]] [[fault:hang]] this never answers');
    // Every model call of this run hangs, so the cancel finds it running whenever it arrives.
    await new Promise((r) => setTimeout(r, 300));
    await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
    const response = await pending;
    expect(response.stopReason).toBe('cancelled');
    expect(response._meta).toMatchObject({ parley: { status: 'cancelled' } });
  });

  it('a bad request gets a JSON-RPC error and the process keeps serving', async () => {
    await expect(ctx.request('session/teleport', {})).rejects.toMatchObject({ code: -32601 });
    await expect(
      ctx.request(methods.agent.session.setMode, { sessionId: 'nope', modeId: 'auto' }),
    ).rejects.toMatchObject({ code: -32002 });
    const session = await ctx.buildSession(root).start();
    expect((await session.prompt('[[route:direct]] hello')).stopReason).toBe('end_turn');
  });

  it('stdout carries only JSON-RPC messages, one per line', () => {
    const lines = agent
      .stdout()
      .split('\n')
      .filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('closing stdin ends the process cleanly', async () => {
    finishClient();
    await clientDone;
    agent.child.stdin.end();
    expect(await agent.exited).toBe(0);
  });
});
