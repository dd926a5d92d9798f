/** Shared bits of the MCP server tests (HTTP and stdio): the two servers, clients, result readers and progress collection. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import { silentLogger } from '../../../src/log.ts';
import { mcpRoutes } from '../../../src/protocols/mcp/index.ts';
import { createTestParley } from '../engine.ts';
import { openKv } from '../../../src/store/kv.ts';
import { createLmdbMcpEventStore } from '../../../src/store/mcp-events/lmdb-event-store.ts';
import { listen } from '../http.ts';
import { startFixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { NOTER } from './a2a-helpers.ts';
import { READER } from './citing.ts';

export { NOTER, NOTE_QUERY } from './a2a-helpers.ts';

export interface AskResult {
  runId: string;
  threadId: string;
  status: string;
  answer?: string;
  error?: string;
  usage: { inputTokens: number; outputTokens: number; modelCalls: number };
}

export const structured = <T>(r: CallToolResult): T => r.structuredContent as T;
export const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Progress notifications as they arrive, plus a way to wait for one matching a pattern. */
export function progressLog() {
  const seen: { progress: number; message?: string }[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  return {
    seen,
    onprogress: (p: { progress: number; message?: string }) => {
      seen.push({ progress: p.progress, message: p.message });
      for (const w of [...waiters]) {
        const m = p.message?.match(w.re);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    },
    waitFor(re: RegExp): Promise<RegExpMatchArray> {
      for (const s of seen) {
        const m = s.message?.match(re);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}

/** An elicitation handler that accepts every tool call it is asked about, recording the messages. */
export function acceptingElicitation(asked: string[]) {
  return ({ message, requestedSchema }: { message: string; requestedSchema: unknown }) => {
    asked.push(message);
    const ids = Object.keys((requestedSchema as { properties: Record<string, unknown> }).properties);
    return { action: 'accept' as const, content: Object.fromEntries(ids.map((id) => [id, 'accept'])) };
  };
}

export type Elicit = (params: { message: string; requestedSchema: unknown }) => {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string>;
};

/** An elicitation handler that fails (a client whose UI cannot show the form): the client answers with an error. */
export const failingElicitation: Elicit = () => {
  throw new Error('this client cannot show forms');
};

/** The `input_required` answer of ask and get_run. */
export interface InputRequiredResult {
  runId?: string;
  id?: string;
  status: string;
  pending: {
    requestId: string;
    kind: string;
    toolCalls: { toolCallId: string; tool: string; arguments: unknown; reason: string }[];
    answerWith: { tool: string; arguments: Record<string, unknown> };
  }[];
  then: { tool: string; arguments: Record<string, unknown> };
  elicitationError?: string;
}

/** The log notifications and resource list changes a client was sent. */
export function notificationsOf(client: Client) {
  const logs: { level: string; data: unknown }[] = [];
  let listChanged = 0;
  client.setNotificationHandler('notifications/message', (n) => {
    logs.push({ level: n.params.level, data: n.params.data });
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    listChanged += 1;
  });
  return { logs, listChanged: () => listChanged };
}

/** The revision a 2026-07-28 client pins (stateless: no initialize, no session; `_meta` on every request). */
export const MODERN = '2026-07-28';

/**
 * A client of `name` that answers elicitation/create with `elicit` (and advertises elicitation) when given;
 * `modern` pins 2026-07-28, where the SDK answers `input_required` rounds with the same handler and retries.
 */
export function mcpClient(name: string, elicit?: Elicit, options: { modern?: boolean } = {}): Client {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      ...(options.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  if (elicit)
    client.setRequestHandler('elicitation/create', async (req) =>
      elicit(req.params as { message: string; requestedSchema: unknown }),
    );
  return client;
}

/**
 * Parley's MCP server over Streamable HTTP on 127.0.0.1: the real engine (scripted model, Kuzu in
 * memory) with the fixture MCP server over HTTP as its tool host, /mcp plus /mcp-short whose
 * sessions expire after `sessionIdleMs`, and the approval routes. The noter is its one specialist;
 * `reader` adds the reader (citing.ts), whose step reads a named file.
 */
export async function startMcpHttp(options: { sessionIdleMs?: number; reader?: boolean } = {}) {
  const fixture = await startFixtureHttpServer();
  const parley = await createTestParley({
    roster: false,
    specialists: options.reader ? [NOTER, READER] : [NOTER],
    mcpServers: { fx: { url: fixture.mcpUrl } },
  });
  // The event store the server wires in (resumable streams), in its own temporary environment.
  const kv = openKv(':memory:');
  const deps = {
    eventStore: createLmdbMcpEventStore(kv),
    engine: parley.engine,
    approvals: parley.approvals,
    store: parley.store,
    config: parley.config,
    logger: silentLogger,
  };
  const app = new Hono();
  app.route('/mcp', mcpRoutes(deps));
  if (options.sessionIdleMs !== undefined)
    app.route('/mcp-short', mcpRoutes({ ...deps, sessionIdleMs: options.sessionIdleMs }));
  app.route('/', approvalRoutes({ broker: parley.approvals }));
  const server = await listen(app);
  const clients: Client[] = [];
  return {
    fixture,
    parley,
    server,
    writesTo: (path: string) => fixture.state.writes.filter((w) => w.path === path).length,
    async connect(options: { path?: string; elicit?: Elicit; fetch?: typeof fetch; modern?: boolean } = {}) {
      const client = mcpClient('parley-test', options.elicit, { modern: options.modern });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}${options.path ?? '/mcp'}`), {
          fetch: options.fetch,
          reconnectionOptions: {
            initialReconnectionDelay: 50,
            maxReconnectionDelay: 500,
            reconnectionDelayGrowFactor: 2,
            maxRetries: 5,
          },
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => undefined);
      await server.close();
      await parley.close();
      await kv.close();
      await fixture.close();
    },
  };
}

const STDIO_ENTRY = fileURLToPath(new URL('./mcp-stdio-entry.ts', import.meta.url));

/**
 * Parley's MCP server over stdio: a separate process (mcp-stdio-entry.ts: the real engine behind
 * serveMcpStdio, the fixture MCP server over stdio as its tool host) driven by the client SDK's
 * stdio transport. The fixture logs each write to a file, so the test sees what the process did.
 */
export async function startMcpStdio(options: { elicit?: Elicit; modern?: boolean; reader?: boolean } = {}) {
  const writeLog = join(mkdtempSync(join(tmpdir(), 'parley-mcp-stdio-')), 'writes.jsonl');
  const client = mcpClient('parley-stdio-test', options.elicit, { modern: options.modern });
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_ENTRY],
      env: { ...env, FIXTURE_LOG: writeLog, ...(options.reader ? { MCP_TEST_READER: '1' } : {}) },
      stderr: 'ignore',
    }),
  );
  return {
    client,
    writesTo: (path: string) =>
      existsSync(writeLog)
        ? readFileSync(writeLog, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .filter((l) => (JSON.parse(l) as { path?: string }).path === path).length
        : 0,
    close: () => client.close(),
  };
}

interface RawBody {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export const MODERN_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * One 2026-07-28 request as a client sends it, by hand: the envelope in `_meta` (declaring form elicitation)
 * and the matching headers; `headers` adds more (Authorization). The answer's last JSON-RPC message.
 */
export async function postModern(
  base: string,
  method: string,
  params?: Record<string, unknown>,
  version = MODERN,
  headers: Record<string, string> = {},
) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  };
  const name: Record<string, string> = typeof params?.name === 'string' ? { 'mcp-name': params.name } : {};
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...MODERN_HEADERS, 'mcp-protocol-version': version, 'mcp-method': method, ...name, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // A response may come as SSE (progress before the result): the last data line holds the result.
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .at(-1)!
    : text;
  return { status: res.status, headers: res.headers, body: JSON.parse(json) as RawBody };
}
