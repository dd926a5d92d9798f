/**
 * Resuming through the protocols' own clients across kill -9 of a real `parley serve` process on the same
 * data dir: an MCP session does not survive a restart (by protocol
 * design the server answers 404 and the client starts a new session), so the client continues the run
 * with get_run and approve in a new session (docs/protocols/mcp.md "Resuming a stream").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { serveProcess, type ServeProcess } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';
import { structured, type AskResult, type InputRequiredResult } from '../../support/protocols/mcp-helpers.ts';

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
vi.setConfig({ testTimeout: 120_000 });

const servers: ServeProcess[] = [];
const dataDirs: string[] = [];
afterEach(() => {
  for (const s of servers.splice(0))
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<ServeProcess> {
  const s = await serveProcess(dataDir);
  servers.push(s);
  return s;
}

async function killHard(s: ServeProcess): Promise<void> {
  s.child.kill('SIGKILL');
  expect((await s.exit).signal).toBe('SIGKILL');
}

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-restart-resume-'));
  dataDirs.push(dir);
  return dir;
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
});
