/**
 * Parley as an MCP server over stdio: a separate process (mcp-stdio-entry.ts, the real engine
 * behind serveMcpStdio) driven by the MCP client SDK's stdio transport.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { NOTE_QUERY, progressLog, structured, textOf, type AskResult } from '../../../support/protocols/mcp-helpers.ts';

const entry = fileURLToPath(new URL('../../../support/protocols/mcp-stdio-entry.ts', import.meta.url));
const writeLog = join(mkdtempSync(join(tmpdir(), 'parley-mcp-stdio-')), 'writes.jsonl');
const writes = () => (existsSync(writeLog) ? readFileSync(writeLog, 'utf8').trim().split('\n').filter(Boolean).length : 0);

let client: Client;
const elicited: string[] = [];

beforeAll(async () => {
  client = new Client({ name: 'parley-stdio-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async (req) => {
    const params = req.params as { message: string; requestedSchema: { properties: Record<string, unknown> } };
    elicited.push(params.message);
    return { action: 'accept', content: Object.fromEntries(Object.keys(params.requestedSchema.properties).map((id) => [id, 'accept'])) };
  });
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', entry], env: { ...env, FIXTURE_LOG: writeLog }, stderr: 'ignore' }));
}, 60_000);
afterAll(async () => {
  await client?.close();
});

describe('MCP server over stdio', () => {
  it('lists the tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['approve', 'ask', 'council', 'get_run', 'list_specialists', 'search_memory']);
  });

  it('ask streams progress and returns the answer', async () => {
    const progress = progressLog();
    const result = await client.callTool({ name: 'ask', arguments: { query: 'noter: keep notes [[route:plan]] [[steps:1]]' } }, { onprogress: progress.onprogress });
    const out = structured<AskResult>(result);
    expect(out.status).toBe('completed');
    expect(textOf(result)).toBe(out.answer);
    expect(progress.seen[0]?.message).toBe(`run ${out.runId} started`);
    expect(progress.seen.map((p) => p.message)).toContain('node router');
  });

  it('an approval round-trips through elicitation and the tool runs', async () => {
    const before = writes();
    const out = structured<AskResult>(await client.callTool({ name: 'ask', arguments: { query: NOTE_QUERY } }));
    expect(out.status).toBe('completed');
    expect(elicited.some((m) => m.includes('fx/write_note'))).toBe(true);
    expect(writes()).toBe(before + 1);
  });

  it('cancelling the call cancels the run', async () => {
    const progress = progressLog();
    const abort = new AbortController();
    const asking = client.callTool({ name: 'ask', arguments: { query: 'this never answers [[fault:hang]]' } }, { onprogress: progress.onprogress, signal: abort.signal });
    const [, runId] = await progress.waitFor(/^run (\S+) started/);
    await progress.waitFor(/^node router/);
    abort.abort();
    await expect(asking).rejects.toThrow();
    // The server side: the run is cancelled, so get_run finds it recorded as such.
    await expect
      .poll(async () => {
        const r = await client.callTool({ name: 'get_run', arguments: { run_id: runId } });
        return r.isError ? undefined : structured<{ status: string }>(r).status;
      }, { timeout: 10_000 })
      .toBe('cancelled');
  });

  it('bad arguments come back as a tool error and the server keeps serving', async () => {
    const bad = await client.callTool({ name: 'search_memory', arguments: { query: '', k: 500 } });
    expect(bad.isError).toBe(true);
    expect((await client.listTools()).tools).toHaveLength(6);
  });

  // The SDK answered these with -32603 Internal error and a raw zod issue dump (found by the fuzz test on /mcp).
  it('params that do not match the request\'s schema get -32602 naming the field, and the server keeps serving', async () => {
    const err = await client.request({ method: 'logging/setLevel', params: { level: 'loud' as 'info' } }).catch((e: unknown) => e as { code?: number; message?: string });
    expect(err).toMatchObject({ code: -32602 });
    expect((err as { message: string }).message).toMatch(/Invalid params: params\.level: Invalid option/);
    expect((err as { message: string }).message).not.toMatch(/\n|"code"/);
    expect((await client.listTools()).tools).toHaveLength(6);
  });
});
