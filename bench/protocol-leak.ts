/**
 * Heap across many sequential runs through each protocol adapter, the way users come in: the whole
 * server (createParley, Kuzu on a file in a temporary folder) on 127.0.0.1 against the scripted model in its own process
 * as the model endpoint (bench/lib/model-process.ts), and for each protocol its own
 * client SDK, created once and reused like a long-lived client, running small direct-route queries
 * one after another. Heap after a full GC every K runs; the least-squares slope after the first two
 * samples says how many bytes each run leaves behind.
 *
 *   node --expose-gc --import tsx bench/protocol-leak.ts [--runs 2000] [--every 100] [--only a2a,mcp]
 *                                                         [--max-slope 1024] [--snapshots DIR] [--json FILE]
 *   npm run bench:protocol-leak -- --runs 2000
 *
 * Each protocol runs in its own child process (a fresh heap and server). Engine retention is set to
 * 1 s (PARLEY_RUN_RETENTION_MS) and every sample waits until the engine holds no finished run, so
 * run retention neither hides nor mimics a leak; the A2A task store's cap is set low for the same
 * reason (PARLEY_A2A_TASK_RETENTION_MAX). Exit code 1 when a protocol's runs failed or its heap slope
 * is at or above --max-slope bytes per run (default 1 KB: over 2,000–3,000 runs the same code measures
 * anywhere within about ±0.5 KB/run; 10,000 runs resolve less). docs/performance.md has the figures.
 * --snapshots DIR writes a heap snapshot at the second sample and the last, to compare in DevTools.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import OpenAI from 'openai';
import { HttpAgent } from '@ag-ui/client';
import { Role, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { client as acpClient, methods, type ClientContext } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { loadConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { createParley, type Parley } from '../src/server.ts';
import { collect, describeError, sleep } from './lib/clock.ts';
import { startModelServer } from './lib/model-server.ts';
import { slope } from './lib/stats.ts';

/** One protocol's long-lived client: runs one query to its end, or throws. */
interface Driver {
  run(query: string): Promise<void>;
  close(): Promise<void>;
}

interface Protocol {
  name: string;
  /** What a run is, for the table's legend. */
  what: string;
  open(baseUrl: string): Promise<Driver>;
}

interface Sample {
  afterRuns: number;
  heapUsed: number;
  rss: number;
}

export interface ProtocolLeakResult {
  protocol: string;
  runs: number;
  failures: number;
  firstError?: string;
  samples: Sample[];
  heapSlopeBytesPerRun: number;
  rssSlopeBytesPerRun: number;
  seconds: number;
}

// ── the clients ──────────────────────────────────────────────────────────────

const sse: Protocol = {
  name: 'sse',
  what: 'POST /stream, fetch + eventsource-parser, one run per request',
  async open(baseUrl) {
    return {
      async run(query) {
        const res = await fetch(`${baseUrl}/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        if (res.status !== 200) throw new Error(`POST /stream: HTTP ${res.status} ${await res.text()}`);
        let last: { type?: string; status?: string } | undefined;
        const reader = res
          .body!.pipeThrough(new TextDecoderStream())
          .pipeThrough(new EventSourceParserStream())
          .getReader();
        for (let m = await reader.read(); !m.done; m = await reader.read())
          last = JSON.parse(m.value.data) as typeof last;
        if (last?.type !== 'run.finished' || last.status !== 'completed')
          throw new Error(`/stream ended with ${JSON.stringify(last)}`);
      },
      close: async () => undefined,
    };
  },
};

const agui: Protocol = {
  name: 'ag-ui',
  what: '@ag-ui/client HttpAgent (one agent; a new thread and message list per run)',
  async open(baseUrl) {
    const agent = new HttpAgent({ url: `${baseUrl}/ag-ui` });
    return {
      async run(query) {
        // One agent object for the whole benchmark; each run is a new conversation, so the
        // client's own message list does not grow (that would be the client's state, by design).
        agent.threadId = randomUUID();
        agent.setMessages([{ id: randomUUID(), role: 'user', content: query }]);
        const { newMessages } = await agent.runAgent({ runId: randomUUID() });
        if (!newMessages.some((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.length > 0))
          throw new Error('AG-UI run gave no answer');
      },
      close: async () => agent.abortRun(),
    };
  },
};

const openai: Protocol = {
  name: 'openai',
  what: 'openai SDK, chat.completions.create stream: true, model "parley"',
  async open(baseUrl) {
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'not-needed', maxRetries: 0 });
    return {
      async run(query) {
        const stream = await client.chat.completions.create({
          model: 'parley',
          stream: true,
          messages: [{ role: 'user', content: query }],
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        if (!text) throw new Error('OpenAI endpoint gave no answer');
      },
      close: async () => undefined,
    };
  },
};

const a2a: Protocol = {
  name: 'a2a',
  what: '@a2a-js/sdk ClientFactory client, SendStreamingMessage (one task per run)',
  async open(baseUrl) {
    const client = await new ClientFactory().createFromUrl(baseUrl);
    return {
      async run(query) {
        const message = {
          messageId: randomUUID(),
          role: Role.ROLE_USER,
          parts: [
            {
              content: { $case: 'text' as const, value: query },
              metadata: undefined,
              filename: '',
              mediaType: 'text/plain',
            },
          ],
          contextId: '',
          taskId: '',
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
        let state: TaskState | undefined;
        for await (const e of client.sendMessageStream({
          tenant: '',
          message,
          configuration: undefined,
          metadata: undefined,
        }))
          state = stateOf(e) ?? state;
        if (state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`A2A task ended in state ${state}`);
      },
      close: async () => undefined,
    };
  },
};

function stateOf(e: StreamResponse): TaskState | undefined {
  if (e.payload?.$case === 'task') return e.payload.value.status?.state;
  if (e.payload?.$case === 'statusUpdate') return e.payload.value.status?.state;
  return undefined;
}

const mcp: Protocol = {
  name: 'mcp',
  what: '@modelcontextprotocol/client Client over Streamable HTTP, one session, tool `ask`',
  async open(baseUrl) {
    const client = new McpClient({ name: 'parley-protocol-leak', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
    return {
      async run(query) {
        const result = await client.callTool({ name: 'ask', arguments: { query } });
        if (result.isError) throw new Error(`MCP ask failed: ${JSON.stringify(result.content)}`);
      },
      close: () => client.close(),
    };
  },
};

/**
 * An ACP connection held open for the whole benchmark: connectWith's callback keeps it until close().
 * `perRun: 'session'` opens a new session per run and closes it after (session/close), as an editor
 * does per conversation; `'reuse'` sends every prompt to one session (its history is capped by design).
 */
function acpProtocol(name: string, transport: 'http' | 'ws', perRun: 'session' | 'reuse'): Protocol {
  return {
    name,
    what:
      `@agentclientprotocol/sdk ClientApp over ${transport === 'http' ? 'Streamable HTTP' : 'WebSocket'}, one connection, ` +
      (perRun === 'session' ? 'a new session per run, closed after it' : 'one session for every run'),
    async open(baseUrl) {
      const app = acpClient({ name: 'parley-protocol-leak' });
      const stream =
        transport === 'http'
          ? createHttpStream(`${baseUrl}/acp`)
          : createWebSocketStream(`${baseUrl.replace(/^http/, 'ws')}/acp`, { WebSocket: WebSocket as never });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const ready = new Promise<ClientContext>((resolve, reject) => {
        app
          .connectWith(stream, async (ctx) => {
            await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
            resolve(ctx);
            await held;
          })
          .catch(reject);
      });
      const ctx = await ready;
      const shared = perRun === 'reuse' ? await ctx.buildSession('/tmp').start() : undefined;
      return {
        async run(query) {
          const session = shared ?? (await ctx.buildSession('/tmp').start());
          try {
            const reply = session.prompt(query);
            const text = await session.readText();
            const response = await reply;
            if (response.stopReason !== 'end_turn' || !text)
              throw new Error(`ACP prompt stopped with ${response.stopReason} (${text.length} chars)`);
          } finally {
            if (!shared) {
              session.dispose();
              await ctx.request(methods.agent.session.close, { sessionId: session.sessionId });
            }
          }
        },
        async close() {
          shared?.dispose();
          release();
        },
      };
    },
  };
}

const PROTOCOLS: Protocol[] = [
  sse,
  agui,
  openai,
  a2a,
  mcp,
  acpProtocol('acp-http', 'http', 'reuse'),
  acpProtocol('acp-ws', 'ws', 'session'),
];

// ── one protocol, in a child process ─────────────────────────────────────────

async function startServer(dataDir: string, modelUrl: string): Promise<{ parley: Parley; url: string }> {
  const mcpConfig = join(dataDir, 'mcp_config.json');
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: {} }));
  const config = loadConfig({
    // The scripted model in its own process, as a model endpoint: the built-in one would share this
    // heap and keep a log of every request (that log is the scripted model's, not Parley's).
    PARLEY_MODEL_BASE_URL: modelUrl,
    PARLEY_MODEL_API_KEY: 'not-needed',
    PARLEY_MODEL: 'scripted',
    PARLEY_MODEL_MAX_RETRIES: '0',
    PARLEY_PORT: '0',
    // Kuzu on a database file in a fresh folder, as shipped (an in-memory one never checkpoints).
    PARLEY_DATA_DIR: dataDir,
    PARLEY_MCP_CONFIG: mcpConfig,
    PARLEY_LOG_LEVEL: 'silent',
    // Finished runs kept 1 s, so retention shows as neither a leak nor its absence.
    PARLEY_RUN_RETENTION_MS: '1000',
    // The A2A task store's cap, low for the same reason (reached before the second sample).
    PARLEY_A2A_TASK_RETENTION_MAX: '50',
    // Execution memory keeps the latest runs in heap for search: bounded, and kept small here.
    PARLEY_MEMORY_WINDOW: '50',
    // One caller starts thousands of runs.
    PARLEY_RATE_LIMIT_PER_MINUTE: '1000000',
    PARLEY_CALLER_MAX_TOKENS: '1000000000',
    PARLEY_CALLER_MAX_COST_USD: '1000000',
  });
  const parley = await createParley(config, { logger: silentLogger, telemetry: false });
  const { url } = await parley.listen();
  return { parley, url };
}

/** Waits until the engine holds no run (finished ones expire after the 1 s retention). */
async function drained(parley: Parley): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (parley.engine.retainedRuns > 0 && Date.now() < deadline) await sleep(50);
}

async function sampleHeap(afterRuns: number): Promise<Sample> {
  await collect();
  const mem = process.memoryUsage();
  return { afterRuns, heapUsed: mem.heapUsed, rss: mem.rss };
}

async function measure(
  protocol: Protocol,
  runs: number,
  every: number,
  snapshots?: string,
): Promise<ProtocolLeakResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-protocol-leak-'));
  const started = Date.now();
  const model = await startModelServer(0);
  const { parley, url } = await startServer(dataDir, model.baseUrl);
  const samples: Sample[] = [];
  let failures = 0;
  let firstError: string | undefined;
  try {
    const driver = await protocol.open(url);
    try {
      for (let i = 0; i < runs; i++) {
        try {
          await driver.run(`[[route:direct]] protocol leak check, run ${i}: what is ${i} plus one?`);
        } catch (err) {
          failures++;
          firstError ??= describeError(err);
        }
        if ((i + 1) % every === 0) {
          await drained(parley);
          await model.clear();
          samples.push(await sampleHeap(i + 1));
          if (process.env.BENCH_VERBOSE)
            process.stderr.write(
              `  · ${protocol.name}: ${i + 1} runs, heap ${(samples.at(-1)!.heapUsed / 2 ** 20).toFixed(1)} MB\n`,
            );
          // Snapshots at the second sample (after warm-up) and the last one, to compare.
          if (snapshots && (samples.length === 2 || i + 1 === runs)) {
            mkdirSync(snapshots, { recursive: true });
            writeHeapSnapshot(join(snapshots, `${protocol.name}-${i + 1}.heapsnapshot`));
          }
        }
      }
    } finally {
      await driver.close();
    }
  } finally {
    await parley.close();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const kept = samples.slice(Math.min(2, Math.max(0, samples.length - 2)));
  const xs = kept.map((s) => s.afterRuns);
  return {
    protocol: protocol.name,
    runs,
    failures,
    ...(firstError ? { firstError } : {}),
    samples,
    heapSlopeBytesPerRun: slope(
      xs,
      kept.map((s) => s.heapUsed),
    ),
    rssSlopeBytesPerRun: slope(
      xs,
      kept.map((s) => s.rss),
    ),
    seconds: (Date.now() - started) / 1000,
  };
}

// ── the parent: one child per protocol, then the table ───────────────────────

interface Args {
  runs: number;
  every: number;
  only: string[];
  maxSlope: number;
  snapshots?: string;
  json?: string;
  child?: string;
}

function parseArgs(argv: string[]): Args {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const runs = Number(value('--runs') ?? 2000);
  const every = Number(value('--every') ?? Math.max(1, Math.round(runs / 20)));
  const only = (value('--only') ?? PROTOCOLS.map((p) => p.name).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((n) => !PROTOCOLS.some((p) => p.name === n));
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(every) || every < 1)
    throw new Error('--runs and --every take positive integers');
  if (unknown.length)
    throw new Error(`unknown protocol ${unknown.join(', ')}; known: ${PROTOCOLS.map((p) => p.name).join(', ')}`);
  return {
    runs,
    every,
    only,
    maxSlope: Number(value('--max-slope') ?? 1024),
    snapshots: value('--snapshots'),
    json: value('--json'),
    child: value('--child'),
  };
}

function runChild(name: string, args: Args): Promise<ProtocolLeakResult> {
  const script = fileURLToPath(import.meta.url);
  const childArgs = [
    '--expose-gc',
    '--import',
    'tsx',
    script,
    '--child',
    name,
    '--runs',
    String(args.runs),
    '--every',
    String(args.every),
  ];
  if (args.snapshots) childArgs.push('--snapshots', args.snapshots);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as ProtocolLeakResult);
      } catch {
        reject(new Error(`${name}: the child exited with ${code} and no result${out ? `: ${out.slice(-400)}` : ''}`));
      }
    });
  });
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const num = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    const protocol = PROTOCOLS.find((p) => p.name === args.child)!;
    const result = await measure(protocol, args.runs, args.every, args.snapshots);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    // Clients' pooled sockets and timers must not keep the child alive.
    process.exit(0);
  }

  const started = new Date();
  const results: ProtocolLeakResult[] = [];
  const errors: string[] = [];
  for (const name of args.only) {
    try {
      results.push(await runChild(name, args));
    } catch (err) {
      errors.push(describeError(err));
    }
  }

  const out: string[] = [];
  out.push(
    `Parley protocol leak check ${started.toISOString()} · node ${process.version} · ${args.runs} sequential [[route:direct]] runs per protocol, heap after full GC every ${args.every}`,
  );
  out.push('');
  out.push(
    table(
      ['protocol', 'runs', 'failed', 'heap slope B/run', 'RSS slope B/run', 'heap first → last', 'time'],
      results.map((r) => [
        r.protocol,
        String(r.runs),
        String(r.failures),
        num(r.heapSlopeBytesPerRun),
        num(r.rssSlopeBytesPerRun),
        r.samples.length ? `${mb(r.samples[0]!.heapUsed)} → ${mb(r.samples.at(-1)!.heapUsed)}` : '–',
        `${r.seconds.toFixed(0)} s`,
      ]),
    ),
  );
  out.push('');
  out.push(
    'slope: least squares over the samples after the first two (warm-up); ' +
      `failing at ≥ ${args.maxSlope} B/run (--max-slope)`,
  );
  for (const p of PROTOCOLS.filter((p) => args.only.includes(p.name))) out.push(`  ${p.name.padEnd(9)} ${p.what}`);
  const failed: string[] = [...errors];
  for (const r of results) {
    if (r.failures > 0) failed.push(`${r.protocol}: ${r.failures} of ${r.runs} runs failed, first: ${r.firstError}`);
    if (!(r.heapSlopeBytesPerRun < args.maxSlope))
      failed.push(`${r.protocol}: heap grows ${num(r.heapSlopeBytesPerRun)} B/run (limit ${args.maxSlope})`);
  }
  if (failed.length) out.push('', 'FAILED', ...failed.map((f) => `  ${f}`));
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.json)
    writeFileSync(
      args.json,
      JSON.stringify({ date: started.toISOString(), node: process.version, args, results, failed }, null, 2),
    );
  process.exit(failed.length ? 1 : 0);
}

await main();
