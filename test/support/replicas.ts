/**
 * Replicas for the tests (issue 17): a real Postgres and a real Redis (test/support), and `parley serve`
 * processes sharing them, each with its own data dir and one shared workspace folder (the volume a real
 * deployment mounts on every replica), so a file a run writes is found whichever replica ran the call.
 * Each replica has its own embedded knowledge graph unless a test passes NEO4J_* to replica() (cli/replicas/neo4j-replicas.test.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import pgModule from 'pg';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import type { ApprovalRequest } from '../../src/hitl/types.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from './build.ts';
import { POSTGRES_MISSING, postgresBinDir, startPostgres, type TestPostgres } from './postgres.ts';
import { readSse, postJson } from './protocols/sse-read.ts';
import { REDIS_MISSING, redisServerPresent, startRedis, type TestRedis } from './redis.ts';
import { serveProcess, useServeProcesses, type ServeProcess } from './serve-process.ts';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { a2aClientAs, approvalPart, collect, send, stateOf, taskIdOf, text } from './protocols/a2a-helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Why the replica tests cannot run here, or undefined when they can. */
export const replicasMissing = (): string | undefined =>
  postgresBinDir() === undefined ? POSTGRES_MISSING : redisServerPresent() ? undefined : REDIS_MISSING;

export interface UseReplicasOptions {
  /**
   * Replicas started once for the whole file (after Postgres and Redis, on the file's first database,
   * killed after its last test), for the files whose tests only talk to them: none kills, restarts or
   * reconfigures one, and each test reads only its own runs (and the part of a log written during it).
   * A replica costs a start of Parley and its MCP servers; `replica()` still starts one for a test alone.
   */
  shared?: number;
}

export function useReplicas(prefix: string, env: Record<string, string> = {}, options: UseReplicasOptions = {}) {
  let pg: TestPostgres | undefined;
  const { Client } = pgModule;
  let redis: TestRedis | undefined;
  const shared = mkdtempSync(join(tmpdir(), `${prefix}-shared-`));
  const workspace = join(shared, 'workspace');
  mkdirSync(workspace);
  // The shipped MCP config with the filesystem server on the shared folder.
  const config = JSON.parse(readFileSync(join(ROOT, 'mcp_config.json'), 'utf8')) as {
    mcpServers: Record<string, { args: string[] }>;
  };
  config.mcpServers.filesystem!.args = config.mcpServers.filesystem!.args.map((a) =>
    a === '${PARLEY_DATA_DIR}/workspace' ? workspace : a,
  );
  const mcpConfig = join(shared, 'mcp_config.json');
  writeFileSync(mcpConfig, JSON.stringify(config));

  // Each test its own database: runs a test leaves unfinished (its replicas are killed after it) must
  // not be taken over by the next test's replicas.
  let database = 'postgres';
  let tests = 0;
  const replicaEnv = () => ({
    PARLEY_DATABASE_URL: pg!.urlOf(database),
    PARLEY_REDIS_URL: redis!.url,
    PARLEY_MCP_CONFIG: mcpConfig,
    PARLEY_REPLICA_LEASE_MS: '2000',
    ...env,
  });
  const processes = useServeProcesses(prefix, replicaEnv);
  let fileReplicas: ServeProcess[] = [];
  beforeAll(async () => {
    if (replicasMissing()) return;
    ensureBuilt();
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    fileReplicas = await Promise.all(
      Array.from({ length: options.shared ?? 0 }, () => serveProcess(processes.tempDataDir(), replicaEnv())),
    );
  }, BUILD_TIMEOUT_MS);
  beforeEach(async () => {
    if (!pg) return;
    database = `replicas_${++tests}`;
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${database}`);
    } finally {
      await admin.end();
    }
  });
  afterAll(async () => {
    for (const s of fileReplicas) s.child.kill('SIGKILL');
    await Promise.all(fileReplicas.map((s) => s.exit));
    await Promise.all([pg?.stop(), redis?.stop()]);
    redis = undefined;
    rmSync(shared, { recursive: true, force: true });
  });
  return {
    workspace,
    servers: processes.servers,
    /** The current test's database (each test has its own). */
    databaseUrl: () => pg!.urlOf(database),
    /** `pg_ctl restart -m fast` of the file's Postgres; resolves once it accepts connections again. */
    restartPostgres: () => pg!.restart(),
    /** The port of the file's Redis (a test may put a proxy in front of it: tcp-proxy.ts). */
    redisPort: () => redis!.port,
    /** Stops the file's Redis, then starts it again (empty, as without persistence) on the same port after `ms`. */
    redisOutage: async (ms: number) => {
      const port = redis!.port;
      await redis!.stop();
      await new Promise((r) => setTimeout(r, ms));
      redis = await startRedis(port);
    },
    /** Stops the file's Redis (for the tests of a replica without it). */
    stopRedis: async () => {
      await redis?.stop();
      redis = undefined;
    },
    /** The file's replicas (options.shared), started before its first test. */
    sharedReplicas: (): ServeProcess[] => fileReplicas,
    /** A new replica (its own data dir). */
    replica: (extra: Record<string, string> = {}): Promise<ServeProcess> =>
      processes.serve(processes.tempDataDir(), extra),
    /** "Write <file> …" through the filesystem server of the shared workspace: needs an approval. */
    writeQuery(file: string, content: string): string {
      const args = JSON.stringify({ path: join(workspace, file), content });
      return `Write ${file} to the workspace files [[steps:1]] [[tool:filesystem/write_file ${args}]]`;
    },
  };
}

/** The approval request a run's events asked for (its first `approval.requested`). */
export const askedIn = (events: GraphEvent[]) =>
  events.find((e): e is GraphEvent & { type: 'approval.requested' } => e.type === 'approval.requested')!.request;

/** Decisions accepting every tool call of `request` (POST /api/approve's `decisions`). */
export const acceptAll = (request: ApprovalRequest) =>
  request.kind === 'tool' ? Object.fromEntries(request.toolCalls.map((c) => [c.toolCallId, 'accept'])) : {};

/** The seq of each event, in order. */
export const seqs = (events: GraphEvent[]) => events.map((e) => e.seq);

/** A run's event stream (POST /stream or GET /api/runs/:id/events), read in the background. */
export function follow(res: Response) {
  const events: GraphEvent[] = [];
  const state: { error?: unknown } = {};
  const done = (async () => {
    try {
      for await (const m of readSse(res)) {
        events.push(m.json);
        if (m.json.type === 'run.finished') break;
      }
    } catch (err) {
      // The replica serving it was killed: what was read so far is what the client was told.
      state.error = err;
    }
  })();
  return { events, done, state };
}

/** Starts a run on `url` and reads its stream until `until` is seen; the rest is read in the background. */
export async function startRun(url: string, body: Record<string, unknown>, until: GraphEvent['type']) {
  const res = await postJson(`${url}/stream`, body);
  const runId = res.headers.get('x-parley-run-id')!;
  const stream = follow(res);
  const deadline = Date.now() + 60_000;
  while (!stream.events.some((e) => e.type === until)) {
    if (Date.now() > deadline)
      throw new Error(`no ${until} within 60 s: ${JSON.stringify(stream.events.map((e) => e.type))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { runId, ...stream };
}

/** Sends `query` as a new A2A task to the replica at `url` (SDK client) and reads it to its approval. */
export async function a2aTaskWaitingOn(url: string, query: string) {
  const client = await a2aClientAs(url, '');
  const asked = await collect(client.sendMessageStream(send([text(query)], {}, { mode: 'orchestrate' })));
  expect(stateOf(asked.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const [pending] = approvalPart(asked).pending;
  return {
    taskId: taskIdOf(asked),
    requestId: pending!.request_id,
    decisions: Object.fromEntries(pending!.toolCalls.map((c) => [c.toolCallId, 'accept'])),
  };
}

/** SubscribeToTask on the replica at `url`, read in the background until the stream ends. */
export async function subscribeOn(url: string, taskId: string) {
  const client = await a2aClientAs(url, '');
  const events: StreamResponse[] = [];
  const done = (async () => {
    for await (const e of client.resubscribeTask({ tenant: '', id: taskId })) events.push(e);
  })();
  return { client, events, done };
}
