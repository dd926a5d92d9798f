/**
 * `npm run review:run -- --dir DIR --scenario NAME`: one prompt-review run (docs/prompt-reviews/README.md).
 * Starts the relay model on DIR (or uses one already running: --relay URL), starts `parley serve` as
 * shipped (bin/parley.js, the shipped mcp_config.json and specialists/, a temporary data dir and home)
 * pointed at it, sends the scenario's turns to POST /stream, approves every tool call it is asked to
 * (logged), and writes DIR/transcript.md. It never answers a model request: whoever acts as the model
 * writes DIR/<id>.answer.json for each DIR/<id>.request.md.
 */
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import {
  ANSWER_FORMAT,
  DEFAULT_RELAY_TIMEOUT_MS,
  startRelayModel,
  type RelayModel,
} from '../../src/relay-model/server.ts';
import { serveProcess, type ServeProcess } from '../../test/support/serve-one.ts';
import { postJson, readSse } from '../../test/support/protocols/sse-read.ts';
import { SCENARIOS } from './scenarios.ts';
import { modelCalls, renderTranscript, summarize, type TurnRecord } from './transcript.ts';

const USAGE = `usage: npm run review:run -- --dir DIR --scenario ${Object.keys(SCENARIOS).join('|')} [--port 8789 | --relay http://127.0.0.1:8789] [--timeout 1800] [--keep]`;

function fail(message: string): never {
  console.error(`review:run: ${message}\n${USAGE}`);
  process.exit(2);
}

function parseOptions() {
  try {
    return parseArgs({
      options: {
        dir: { type: 'string' },
        scenario: { type: 'string' },
        relay: { type: 'string' },
        port: { type: 'string' },
        timeout: { type: 'string' },
        keep: { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}
const values = parseOptions();
if (!values.dir) fail('--dir is required: the relay folder (request and answer files, then transcript.md)');
const scenario = values.scenario ? SCENARIOS[values.scenario] : undefined;
if (!scenario) fail(`--scenario must be one of ${Object.keys(SCENARIOS).join(', ')}`);
const timeoutMs = values.timeout ? Number(values.timeout) * 1000 : DEFAULT_RELAY_TIMEOUT_MS;
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) fail('--timeout is the seconds a request waits for its answer');
const dir = resolve(values.dir);

const say = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

/** Prints each new request (and when its answer file appears), so whoever answers knows what is waited for. */
function watchFolder(): () => void {
  const seen = new Set<string>();
  const pending = new Set<string>();
  const timer = setInterval(() => {
    void readdir(dir).then((names) => {
      for (const name of names.sort()) {
        const id = name.endsWith('.request.json') ? name.slice(0, -'.request.json'.length) : undefined;
        if (id && !seen.has(id)) {
          seen.add(id);
          if (!names.includes(`${id}.answer.json`)) {
            pending.add(id);
            say(`→ waiting for request ${id}: read ${join(dir, `${id}.request.md`)}, write ${id}.answer.json`);
          }
        }
      }
      for (const id of pending)
        if (names.includes(`${id}.answer.json`)) {
          pending.delete(id);
          say(`✓ ${id}.answer.json written`);
        }
    });
  }, 500);
  return () => clearInterval(timer);
}

/** Approves every tool call of an approval request through POST /api/approve, and says so. */
async function approve(url: string, event: Extract<GraphEvent, { type: 'approval.requested' }>): Promise<string> {
  const request = event.request;
  if (request.kind !== 'tool') {
    const line = `${request.id} (${request.kind}) left unanswered: the driver only approves tool calls`;
    say(`! ${line}`);
    return line;
  }
  const decisions = Object.fromEntries(request.toolCalls.map((t) => [t.toolCallId, 'accept']));
  const res = await postJson(`${url}/api/approve`, { request_id: request.id, decisions });
  const calls = request.toolCalls.map((t) => `${t.tool} ${JSON.stringify(t.args)}`).join('; ');
  const line = `approved ${request.id}: ${calls} → HTTP ${res.status}`;
  say(`✓ ${line}`);
  return line;
}

/** The turns so far, the running one included (its events grow as they arrive): an interrupt writes them too. */
const turns: TurnRecord[] = [];

async function runTurn(url: string, query: string, mode: string | undefined, threadId: string | undefined) {
  const record: TurnRecord = { query, mode, threadId, events: [], approvals: [] };
  turns.push(record);
  const res = await postJson(`${url}/stream`, { query, ...(mode ? { mode } : {}), ...(threadId ? { threadId } : {}) });
  if (!res.ok) throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
  for await (const message of readSse(res)) {
    const event = message.json;
    record.events.push(event);
    if (!['node.started', 'node.finished', 'answer.delta', 'step.delta', 'usage', 'model.thought'].includes(event.type))
      say(`  ${summarize(event).split('\n')[0]}`);
    if (event.type === 'approval.requested') record.approvals.push(await approve(url, event));
  }
  return record;
}

async function workspaceFiles(root: string): Promise<{ path: string; text: string }[]> {
  if (!existsSync(root)) return [];
  const files: { path: string; text: string }[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.push({ path: path.slice(root.length + 1), text: await readFile(path, 'utf8') });
  }
  return files;
}

await mkdir(dir, { recursive: true });
let relay: RelayModel | undefined;
let relayUrl = values.relay?.replace(/\/+$/, '').replace(/\/v1$/, '');
if (!relayUrl) {
  relay = await startRelayModel({
    dir,
    port: values.port ? Number(values.port) : 0,
    timeoutMs,
    log: (line) => say(`relay: ${line}`),
  });
  relayUrl = relay.url;
}
const scratch = await mkdtemp(join(tmpdir(), 'parley-review-'));
const dataDir = join(scratch, 'data');
let serve: ServeProcess | undefined;
const stopWatching = watchFolder();

/** DIR/transcript.md from the turns so far (all of them at the end; what there is on an interrupt). */
async function writeTranscript(): Promise<void> {
  const runIds = new Set(turns.flatMap((t) => t.events.map((e) => e.runId)));
  const calls = await modelCalls(dir, runIds);
  const transcript = renderTranscript({
    scenario: values.scenario!,
    about: scenario!.about,
    turns,
    calls,
    workspaceFiles: await workspaceFiles(join(dataDir, 'workspace')),
  });
  await writeFile(join(dir, 'transcript.md'), transcript);
  say(`transcript (${calls.length} model calls) in ${join(dir, 'transcript.md')}`);
}

const shutdown = async () => {
  stopWatching();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exit;
  }
  if (serve) await writeFile(join(dir, 'parley-serve.log'), serve.log());
  await relay?.close();
  if (!values.keep) await rm(scratch, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  say('interrupted: writing the transcript so far, stopping parley serve and the relay');
  void writeTranscript()
    .catch((err: unknown) => say(`could not write the transcript: ${String(err)}`))
    .then(shutdown)
    .then(() => process.exit(130));
});

try {
  // Every wait is as long as a person may take to answer one request; retries would send a request twice.
  const long = String(timeoutMs + 60_000);
  serve = await serveProcess(dataDir, {
    PARLEY_HOME: join(scratch, 'home'), // does not exist: the shipped mcp_config.json, specialists/ and prices.json
    PARLEY_MODEL_BASE_URL: `${relayUrl}/v1`,
    PARLEY_MODEL_API_KEY: 'relay',
    PARLEY_MODEL: 'relay',
    PARLEY_FREE_MODELS: 'relay',
    PARLEY_MODEL_MAX_RETRIES: '0',
    PARLEY_MODEL_TIMEOUT_MS: long,
    PARLEY_STEP_TIMEOUT_MS: long,
    PARLEY_DYNAMIC_NODE_TIMEOUT_MS: long,
    PARLEY_RUN_MAX_WALL_MS: String(6 * 3600_000),
    PARLEY_LOG_LEVEL: 'info',
    // Stopped by the driver (an interrupt, or the end): in-flight runs get two seconds, not ten.
    PARLEY_SHUTDOWN_TIMEOUT_MS: '2000',
  });
  say(`parley serve listening on ${serve.url} (data ${dataDir}), model: the relay at ${relayUrl}/v1`);
  say(`scenario ${values.scenario}: ${scenario.about}`);
  say(`requests appear in ${dir}: answer each <id>.request.md with <id>.answer.json; ${ANSWER_FORMAT}`);

  for (const [i, turn] of scenario.turns.entries()) {
    const previous = turns.at(-1)?.events.find((e) => e.type === 'run.started');
    const threadId = turn.continueThread && previous?.type === 'run.started' ? previous.threadId : undefined;
    say(`turn ${i + 1}/${scenario.turns.length}: ${turn.query}${threadId ? ` (threadId ${threadId})` : ''}`);
    await runTurn(serve.url, turn.query, turn.mode, threadId);
  }

  await writeTranscript();
  say(`done: server log in ${join(dir, 'parley-serve.log')}`);
} catch (err) {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await shutdown();
}
