/**
 * A thread survives a restart: a real `parley serve` process (src/cli/main.ts through tsx) on a data dir
 * answers a first turn, is stopped (SIGTERM, or kill -9), and a new process on the same data dir lists
 * the thread and gives the second turn's planner and specialist calls the first turn — through SSE and
 * through each other protocol's own client (MCP `ask` threadId, OpenAI X-Parley-Thread-Id, AG-UI
 * threadId, A2A contextId; ACP is tested in test/integration/protocols/acp/load.test.ts). The model is a
 * scripted one outside both processes, so its request log spans the restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { HttpAgent } from '@ag-ui/client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ClientFactory } from '@a2a-js/sdk/client';
import { collect, send, text } from '../../support/protocols/a2a-helpers.ts';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';
import { readAll } from '../../support/protocols/sse-read.ts';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));
let scripted: ScriptedModel;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  scripted = await startScriptedModel();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-threads-restart-'));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await scripted?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `parley serve` on the data dir and resolves with its URL once it listens. */
async function serve(): Promise<{ url: string; child: ChildProcess }> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    env: {
      ...env,
      PARLEY_PORT: '0',
      PARLEY_DATA_DIR: dataDir,
      PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
      PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
      PARLEY_MODEL_API_KEY: 'test',
      PARLEY_MODEL: 'scripted',
      PARLEY_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in: ${log}`)), 60_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace(/[.,]$/, ''));
      }
    };
    child.stderr!.on('data', read);
    child.stdout!.on('data', read);
    child.on('exit', (code) => reject(new Error(`parley serve exited (${code}): ${log}`)));
  });
  return { url, child };
}

const stop = (child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });

/** A first turn that plans one step, and a follow-up whose calls must know it. */
const FIRST = (word: string) => `[[route:plan]] [[steps:1]] Remember the codeword ${word} for the analysis report`;
const SECOND = (word: string) =>
  `[[route:plan]] [[steps:1]] Which codeword ${word.toLowerCase()}-check did I give for the report?`;

/** The follow-up's planner and specialist calls carry the first turn's word. */
function expectFirstTurnIn(word: string) {
  const calls = scripted.requests.filter((r) => JSON.stringify(r.body).includes(`${word.toLowerCase()}-check`));
  const carried = calls.filter((c) => c.role === 'planner' || c.role === 'specialist');
  expect(
    calls.map((c) => c.role),
    word,
  ).toEqual(expect.arrayContaining(['planner', 'specialist']));
  for (const r of carried) expect(JSON.stringify(r.body), `${word}: ${r.role}`).toContain(word);
}

async function ask(url: string, query: string, threadId: string) {
  const res = await fetch(`${url}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, threadId }),
  });
  expect(res.status).toBe(200);
  const events = await readAll(res);
  expect(events.at(-1)?.data).toContain('"status":"completed"');
}

describe('a thread across a restart', () => {
  it('the second turn, asked of a new server process on the same data dir, carries the first', async () => {
    const threadId = 'restart-thread';
    const first = await serve();
    await ask(first.url, '[[route:plan]] [[steps:1]] Remember the codeword HERON77 for the analysis report', threadId);
    await stop(first.child);

    const second = await serve();
    const listed = (await (await fetch(`${second.url}/api/threads`)).json()) as { threads: { threadId: string }[] };
    expect(listed.threads.map((t) => t.threadId)).toContain(threadId);
    await ask(second.url, '[[route:plan]] [[steps:1]] Which codeword heron-check did I give for the report?', threadId);
    const calls = scripted.requests.filter((r) => JSON.stringify(r.body).includes('heron-check'));
    const roles = calls.map((r) => r.role);
    expect(roles).toContain('planner');
    expect(roles).toContain('specialist');
    for (const r of calls.filter((c) => c.role === 'planner' || c.role === 'specialist'))
      expect(JSON.stringify(r.body)).toContain('HERON77');
    await stop(second.child);
  }, 180_000);

  it('after kill -9, the second turn through MCP, OpenAI, AG-UI and A2A carries the first', async () => {
    const first = await serve();
    const mcpThread = randomUUID();
    const oaiThread = randomUUID();
    const a2aContext = randomUUID();
    const agui = new HttpAgent({ url: `${first.url}/ag-ui` });
    agui.addMessage({ id: randomUUID(), role: 'user', content: FIRST('AGUIWORD') });
    await agui.runAgent({ runId: randomUUID() });

    const mcp = new McpClient({ name: 'threads-restart', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${first.url}/mcp`)));
    await mcp.callTool({ name: 'ask', arguments: { query: FIRST('MCPWORD'), threadId: mcpThread } });
    await mcp.close();

    const oai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const headers = { 'X-Parley-Thread-Id': oaiThread };
    const one = await oai(first.url).chat.completions.create(
      { model: 'parley-orchestration', messages: [{ role: 'user', content: FIRST('OAIWORD') }] },
      { headers },
    );

    const a2a = await new ClientFactory().createFromUrl(first.url);
    await collect(a2a.sendMessageStream(send([text(FIRST('A2AWORD'))], { contextId: a2aContext })));

    // Every first turn was answered (so its thread was stored); now the process dies without a word.
    await stop(first.child, 'SIGKILL');
    const second = await serve();

    const mcpAfter = new McpClient({ name: 'threads-restart', version: '1.0.0' });
    await mcpAfter.connect(new StreamableHTTPClientTransport(new URL(`${second.url}/mcp`)));
    await mcpAfter.callTool({ name: 'ask', arguments: { query: SECOND('MCPWORD'), threadId: mcpThread } });
    await mcpAfter.close();
    expectFirstTurnIn('MCPWORD');

    await oai(second.url).chat.completions.create(
      {
        model: 'parley-orchestration',
        messages: [
          { role: 'user', content: FIRST('OAIWORD') },
          { role: 'assistant', content: one.choices[0]!.message.content! },
          { role: 'user', content: SECOND('OAIWORD') },
        ],
      },
      { headers },
    );
    expectFirstTurnIn('OAIWORD');

    // The page is reloaded against the new process: same thread, the messages it had.
    const aguiAfter = new HttpAgent({
      url: `${second.url}/ag-ui`,
      threadId: agui.threadId,
      initialMessages: agui.messages,
    });
    aguiAfter.addMessage({ id: randomUUID(), role: 'user', content: SECOND('AGUIWORD') });
    await aguiAfter.runAgent({ runId: randomUUID() });
    expectFirstTurnIn('AGUIWORD');

    const a2aAfter = await new ClientFactory().createFromUrl(second.url);
    await collect(a2aAfter.sendMessageStream(send([text(SECOND('A2AWORD'))], { contextId: a2aContext })));
    expectFirstTurnIn('A2AWORD');
    await stop(second.child);
  }, 240_000);
});
