/**
 * Resuming through the protocols' own clients across kill -9 of a real `parley serve` process on the same
 * data dir: an MCP session does not survive a restart (by protocol
 * design the server answers 404 and the client starts a new session), so the client continues the run
 * with get_run and approve in a new session (docs/protocols/mcp.md "Resuming a stream"). An ACP editor
 * whose permission request was cut by the crash finds the approval waiting after the restart, answered
 * through POST /api/approve the run finishes, and session/load replays the turn with its answer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { methods } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { messageText, recordingClient, updatesOf } from '../../support/protocols/acp-client.ts';
import { postJson } from '../../support/protocols/sse-read.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { useServeProcesses, type ServeProcess } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';
import { structured, type AskResult, type InputRequiredResult } from '../../support/protocols/mcp-helpers.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const { serve, tempDataDir } = useServeProcesses('parley-restart-resume');

async function killHard(s: ServeProcess): Promise<void> {
  s.child.kill('SIGKILL');
  expect((await s.exit).signal).toBe('SIGKILL');
}

describe('resuming through the protocol clients after kill -9', () => {
  it('MCP: the old session is gone (404), a new session continues the run with get_run and approve, and the file is written', async () => {
    const dataDir = tempDataDir();
    const file = 'mcp-restart.txt';
    const first = await serve(dataDir);
    const before = new Client({ name: 'restart-test', version: '1.0.0' });
    await before.connect(new StreamableHTTPClientTransport(new URL(`${first.url}/mcp`)));
    const asked = structured<InputRequiredResult>(
      await before.callTool({ name: 'ask', arguments: { query: writeFileQuery(dataDir, file, 'after kill -9') } }),
    );
    expect(asked.status).toBe('input_required');
    const runId = asked.runId!;
    const requestId = asked.pending[0]!.requestId;

    await killHard(first);
    const second = await serve(dataDir);
    // The session lived in the process: the restarted server does not know it.
    const stale = await fetch(`${second.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': (before.transport as StreamableHTTPClientTransport).sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    await before.close().catch(() => undefined);

    const after = new Client({ name: 'restart-test', version: '1.0.0' });
    await after.connect(new StreamableHTTPClientTransport(new URL(`${second.url}/mcp`)));
    const waiting = structured<InputRequiredResult>(
      await after.callTool({ name: 'get_run', arguments: { run_id: runId } }),
    );
    expect(waiting.status).toBe('input_required');
    expect(waiting.pending[0]?.requestId).toBe(requestId);
    const callIds = waiting.pending[0]!.toolCalls.map((c) => c.toolCallId);
    const approved = await after.callTool({
      name: 'approve',
      arguments: { request_id: requestId, decisions: Object.fromEntries(callIds.map((id) => [id, 'accept'])) },
    });
    expect(approved.isError).toBeFalsy();
    const done = structured<AskResult>(
      await after.callTool({ name: 'get_run', arguments: { run_id: runId, waitMs: 30_000 } }),
    );
    expect(done.status).toBe('completed');
    expect(readFileSync(join(dataDir, 'workspace', file), 'utf8')).toBe('after kill -9');
    await after.close();
  });

  it('ACP: a permission cut by the crash waits again; /api/approve finishes the run; session/load replays it with the answer', async () => {
    const dataDir = tempDataDir();
    const file = 'acp-restart.txt';
    const query = writeFileQuery(dataDir, file, 'acp after kill -9');
    const first = await serve(dataDir);
    const before = recordingClient();
    before.answer = () => new Promise(() => undefined); // the human is away: nobody answers
    let sessionId = '';
    await before.app
      .connectWith(createHttpStream(`${first.url}/acp`), async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        sessionId = (await ctx.request(methods.agent.session.new, { cwd: dataDir, mcpServers: [] })).sessionId;
        await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'orchestrate' });
        void ctx
          .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: query }] })
          .catch(() => undefined);
        await vi.waitFor(() => expect(before.permissions.length).toBe(1), { timeout: 30_000 });
        await killHard(first);
      })
      .catch(() => undefined);

    const second = await serve(dataDir);
    const listed = (await (await fetch(`${second.url}/api/approvals`)).json()) as {
      approvals: { id: string; runId: string; toolCalls: { toolCallId: string; tool: string }[] }[];
    };
    expect(listed.approvals).toHaveLength(1);
    const [waiting] = listed.approvals;
    expect(waiting!.toolCalls.map((c) => c.tool)).toEqual(['filesystem/write_file']);
    const approved = await postJson(`${second.url}/api/approve`, {
      request_id: waiting!.id,
      decisions: Object.fromEntries(waiting!.toolCalls.map((c) => [c.toolCallId, 'accept'])),
    });
    expect(approved.status).toBe(200);
    await vi.waitFor(
      async () => {
        const run = (await (await fetch(`${second.url}/api/runs/${waiting!.runId}`)).json()) as { status: string };
        expect(run.status).toBe('completed');
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(readFileSync(join(dataDir, 'workspace', file), 'utf8')).toBe('acp after kill -9');

    // The editor comes back: the session, its question and the answer the run gave after the restart.
    const after = recordingClient();
    await after.app.connectWith(createHttpStream(`${second.url}/acp`), async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request(methods.agent.session.load, { sessionId, cwd: dataDir, mcpServers: [] });
    });
    const users = updatesOf(after, sessionId, 'user_message_chunk');
    expect(users.map((u) => (u.content.type === 'text' ? u.content.text : ''))).toEqual([query]);
    expect(messageText(after, sessionId)).not.toBe('');
  });
});
