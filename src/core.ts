/**
 * The protocol-agnostic core, built from Config: knowledge store (+ ingestion of every source),
 * approval broker, tool hosts (MCP servers, A2A peers) and the engine. src/server.ts serves it over
 * HTTP; `parley acp` / `parley mcp` serve the same core over stdio.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { ModelClient } from './llm/types.ts';
import { Engine } from './graph/engine.ts';
import { ApprovalBroker } from './hitl/approvals.ts';
import { checkpointStore, openKnowledgeStore } from './knowledge/open.ts';
import { withConfiguredVectors } from './knowledge/vector-setup.ts';
import type { KnowledgeStore } from './knowledge/store.ts';
import { createIngestion, type Ingestion } from './knowledge/ingest/ingestion.ts';
import { a2aSourceId, mcpSourceId, skillsSourceId, type IngestReport } from './knowledge/ingest/ingest.ts';
import { startupIngestion } from './knowledge/ingest/awaiting-ingestion.ts';
import { McpToolHost, type McpServerStatus } from './tools/mcp-host.ts';
import { A2aPeerHost } from './tools/a2a-peer.ts';
import type { ToolHost } from './tools/types.ts';
import { describePaths, pathWarnings } from './home/report.ts';
import { openKv } from './store/kv.ts';
import { createLmdbThreadStore } from './store/threads/lmdb.ts';
import type { ThreadStore } from './store/threads/types.ts';
import { createLmdbAcpSessionStore } from './store/acp-sessions/lmdb.ts';
import type { AcpSessionStore } from './store/acp-sessions/types.ts';
import { openLmdbRunStore } from './store/runs/lmdb/lmdb-run-store.ts';
import { reliableRunStore, type ReliableRunStore } from './store/runs/reliable-run-store.ts';
import { createLmdbMcpEventStore, type McpEventStore } from './store/mcp-events/lmdb-event-store.ts';
import { createLmdbA2aTaskStore } from './store/a2a-tasks/lmdb.ts';
import { createLmdbA2aPushStore } from './store/a2a-push/lmdb.ts';
import type { A2APushStore } from './store/a2a-push/types.ts';
import type { A2ATaskStore } from './store/a2a-tasks/types.ts';
import type { Cluster } from './cluster/types.ts';
import { contextWindowOf } from './llm/context-windows.ts';

export interface Core {
  store: KnowledgeStore;
  ingestion: Ingestion;
  approvals: ApprovalBroker;
  /** Conversations by caller and thread id (docs/threads.md). */
  threads: ThreadStore;
  /** ACP session records, for session/load and session/list after a restart (docs/protocols/acp.md). */
  acpSessions: AcpSessionStore;
  engine: Engine;
  /** Runs, checkpoints, event logs and approvals in the data dir (docs/durability.md); writes retried in order. */
  runStore: ReliableRunStore;
  /** The SSE messages of MCP Streamable HTTP streams, for Last-Event-ID resumption (docs/protocols/mcp.md). */
  mcpEvents: McpEventStore;
  /** A2A tasks, so GetTask, ListTasks and SubscribeToTask work after a restart (docs/protocols/a2a.md). */
  a2aTasks: A2ATaskStore;
  /** A2A push-notification configs and the outbox of deliveries not yet acknowledged. */
  a2aPush: A2APushStore;
  /** With PARLEY_REDIS_URL: the other replicas (docs/deployment.md); absent when this process is alone. */
  cluster?: Cluster;
  /** Re-ingests every source and reconnects the MCP tool host to the config now in force. */
  reingest(): Promise<IngestReport>;
  /**
   * With `ingestAtStart: 'after-listen'`: runs the start-up ingestion (once; the server calls it once it
   * listens). Until it ends, reads of specialists and tools wait for it if the knowledge graph lacked a
   * configured source (awaiting-ingestion.ts). Otherwise a no-op.
   */
  ingestAfterListen(): Promise<void>;
  /**
   * True once the registry's reads no longer wait for the start-up ingestion (at once without
   * 'after-listen'); otherwise why not, "ingesting: …" or "failed: …" (GET /ready's `knowledge` check).
   */
  knowledgeReady(): true | string;
  /** Each configured MCP server: connected or not, its circuit breaker, its tool count (GET /mcp/servers). */
  toolStatus(): McpServerStatus[];
}

/** A lifecycle part the caller must close, in reverse order of pushing. */
export interface Closer {
  name: string;
  close(): void | Promise<void>;
  /** For GET /ready: true when usable, or a reason why not. */
  ready?(): boolean | string | Promise<boolean | string>;
}

export interface CoreOptions {
  /**
   * Ingest every source while starting (default true). `parley ingest` turns it off to report a fresh
   * ingestion; `parley serve` ingests after it listens ('after-listen': Core.ingestAfterListen), so
   * discovering the MCP servers is not part of its start-up time (docs/performance.md).
   */
  ingestAtStart?: boolean | 'after-listen';
  /**
   * Pick up the runs the last process left in the run store (default true). One-shot commands
   * (`parley run`, `parley ingest`) leave them for the next `parley serve`.
   */
  recoverRuns?: boolean;
  /**
   * The model settings the model client was built from, i.e. after pointAtScriptedModel when the
   * scripted model is in use (default: config.model). PARLEY_EMBEDDINGS_MODEL calls this endpoint.
   */
  modelConfig?: Config['model'];
  /**
   * The engine's wall clock, ms since the epoch (default Date.now): event times, budget windows, thread
   * ages and the date every model is told (prompting/today.ts). Tests and the prompt tour fix it.
   */
  now?: () => number;
}

/**
 * The absolute data folder mcp_config.json sees as ${PARLEY_DATA_DIR} (servers need absolute paths).
 * With the graph in memory, tool servers still need a real folder: a fresh temporary one.
 */
function dataFolder(config: Config, closers: Closer[]): string {
  if (config.store.dataDir !== ':memory:') {
    const dir = resolve(config.store.dataDir);
    mkdirSync(join(dir, 'workspace'), { recursive: true });
    return dir;
  }
  const dir = mkdtempSync(join(tmpdir(), 'parley-data-'));
  mkdirSync(join(dir, 'workspace'));
  // Pushed before the tool host, so it is removed after the tool servers using it have stopped.
  closers.push({ name: 'temporary-data-folder', close: () => rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

/**
 * How long a request waits for the start-up ingestion when the knowledge graph lacked a configured
 * source: longer than one discovery's own bound (15 s per server, in parallel) plus writing it.
 */
const STARTUP_INGESTION_MAX_WAIT_MS = 20_000;

/** "12 specialists available (10 from specialist files, 2 MCP servers)": the count a client should see. */
async function rosterLine(store: KnowledgeStore): Promise<string> {
  const available = (await store.listSpecialists()).filter((s) => s.available);
  const count = (kind: string) => available.filter((s) => s.kind === kind).length;
  const parts = [
    `${count('prompt')} from specialist files`,
    `${count('mcp')} MCP servers`,
    ...(count('a2a') > 0 ? [`${count('a2a')} A2A peers`] : []),
  ];
  return `${available.length} specialists available (${parts.join(', ')})`;
}

export async function createCore(
  config: Config,
  model: ModelClient,
  logger: Logger,
  closers: Closer[],
  options: CoreOptions = {},
): Promise<Core> {
  // Where the configuration comes from, first: a client that started Parley in some folder sees which files it uses.
  logger.info(describePaths(config.paths));
  for (const warning of pathWarnings(config.paths)) logger.warn(warning);
  const opened = await openKnowledgeStore(config.knowledge, config.store);
  closers.push({ name: 'knowledge-store', close: () => opened.close(), ready: () => true });
  // With PARLEY_EMBEDDINGS_MODEL, retrieval adds vector similarity (docs/knowledge.md, "Vector retrieval").
  const store = withConfiguredVectors(opened, options.modelConfig ?? config.model, logger);

  const ingestion = createIngestion({
    store,
    knowledge: config.knowledge,
    logger,
    env: { ...process.env, PARLEY_DATA_DIR: dataFolder(config, closers) },
  });

  // The run store's LMDB environment in the data dir (a temporary one for :memory:).
  // One environment for every part of the store; pushed first, so it closes after all of them.
  const kv = openKv(config.store.dataDir);
  closers.push({ name: 'store', close: () => kv.close() });
  // With PARLEY_DATABASE_URL, runs and threads live in Postgres (docs/deployment.md); closed after their users.
  const pg = config.store.databaseUrl ? await import('./store/postgres/index.ts') : undefined;
  const database = await pg?.openDatabase(config.store.databaseUrl, logger);
  if (database)
    closers.push({
      name: 'database',
      close: () => database.end(),
      // GET /ready: a replica that cannot reach Postgres should get no traffic.
      ready: () =>
        database.query('SELECT 1').then(
          () => true,
          (err: unknown) => `postgres: ${(err as Error).message}`,
        ),
    });
  const threadRetention = {
    maxThreadsPerCaller: config.threads.maxPerCaller,
    maxTurnsPerThread: config.threads.maxTurns,
    maxAgeMs: config.threads.maxAgeMs,
  };
  // Threads age on the engine's clock: a turn is stamped with it (thread-turns.ts).
  const now = options.now ?? Date.now;
  const threads =
    pg && database
      ? pg.createPostgresThreadStore(database, threadRetention, now)
      : createLmdbThreadStore(kv, threadRetention, now);
  // An ACP session's record lives as long as its thread may.
  const acpRetention = { maxPerCaller: config.threads.maxPerCaller, maxAgeMs: config.threads.maxAgeMs };
  const acpSessions =
    pg && database
      ? pg.createPostgresAcpSessionStore(database, acpRetention)
      : createLmdbAcpSessionStore(kv, acpRetention);
  // Expired threads are never returned; the sweep frees their space.
  const sweep = setInterval(
    () => void threads.sweep().catch((err: unknown) => logger.warn('thread sweep failed', { error: String(err) })),
    Math.min(config.threads.maxAgeMs, 3_600_000),
  );
  sweep.unref();
  closers.push({ name: 'thread-sweep', close: () => clearInterval(sweep) });
  // The run store closes after the engine and the broker (closers close in reverse order).
  // Every write of a run is queued in order and retried while this process lives (a database restart
  // leaves no hole); one failing beyond 10 s marks the run degraded (GET /ready, `parley status`).
  const runStore = reliableRunStore(
    pg && database ? pg.openPostgresRunStore(database, { closePool: false }) : openLmdbRunStore(kv, { closeKv: false }),
    { logger, ...(pg ? { isPermanent: pg.permanentPostgresError } : {}) },
  );
  const mcpEvents = pg && database ? pg.createPostgresMcpEventStore(database) : createLmdbMcpEventStore(kv);
  const a2aRetention = { maxFinished: config.protocols.a2aTaskRetentionMax };
  const a2aTasks =
    pg && database ? pg.createPostgresA2aTaskStore(database, a2aRetention) : createLmdbA2aTaskStore(kv, a2aRetention);
  const a2aPush = pg && database ? pg.createPostgresA2aPushStore(database) : createLmdbA2aPushStore(kv);
  const mcpEventSweep = setInterval(
    () => void mcpEvents.sweep().catch((err: unknown) => logger.warn('MCP event sweep failed', { error: String(err) })),
    3_600_000,
  );
  mcpEventSweep.unref();
  closers.push({ name: 'mcp-event-sweep', close: () => clearInterval(mcpEventSweep) });
  closers.push({
    name: 'run-store',
    close: () => runStore.close(),
    ready: () => {
      const degraded = runStore.degraded();
      if (degraded.length === 0) return true;
      const named = degraded.slice(0, 5).map((d) => `${d.runId} (${d.what}: ${d.error})`);
      return `degraded: ${degraded.length} run(s) not fully stored, retrying: ${named.join('; ')}${degraded.length > 5 ? '; …' : ''}`;
    },
  });
  // Replicas: Redis carries what the processes sharing this Postgres tell each other; it closes after the engine.
  const cluster = config.cluster.redisUrl
    ? await (await import('./cluster/redis.ts')).openRedisCluster({ url: config.cluster.redisUrl, logger })
    : undefined;
  if (cluster) {
    closers.push({ name: 'redis', close: () => cluster.close(), ready: () => cluster.ready() });
    logger.info('replicas: sharing runs, approvals and limits with the other replicas through Redis', {
      replica: cluster.replicaId,
    });
  }

  const approvals = new ApprovalBroker({
    ...(cluster ? { cluster } : {}),
    store: runStore.approvals,
    timeoutMs: config.approvals.timeoutMs,
    defaultDecision: config.approvals.defaultDecision,
    recordApproval: (r) => store.recordApproval(r),
    logger,
  });
  closers.push({ name: 'approvals', close: () => approvals.close() });

  /** A tool host for the MCP servers of the config in force (connects now when PARLEY_TOOLS_CONNECT=eager). */
  const connectTools = async () => {
    const host = new McpToolHost({ servers: ingestion.mcpConfig().servers, settings: config.tools, approvals, logger });
    await host.start();
    return host;
  };
  let tools = await connectTools();
  closers.push({ name: 'mcp-tools', close: () => tools.close() });

  const peers = new A2aPeerHost({ approvals, logger });

  // ingestAll logs the summary, unavailable servers and skipped files itself.
  const ingestNow = async () => {
    await ingestion.ingest();
    logger.info(await rosterLine(store));
    // An ingestion is many small write transactions: a checkpoint frees what Kuzu kept of them in memory.
    await checkpointStore(opened).catch((err: unknown) =>
      logger.warn('knowledge store checkpoint after ingestion failed', { error: String(err) }),
    );
  };
  if (options.ingestAtStart === true || options.ingestAtStart === undefined) await ingestNow();
  const afterListen =
    options.ingestAtStart === 'after-listen'
      ? await startupIngestion({
          store,
          configuredSources: [
            ...ingestion
              .mcpConfig()
              .servers.filter((s) => !s.disabled)
              .map((s) => mcpSourceId(s.name)),
            ...config.knowledge.skillsDirs.map(skillsSourceId),
            ...config.knowledge.a2aPeers.map(a2aSourceId),
          ],
          maxWaitMs: STARTUP_INGESTION_MAX_WAIT_MS,
          logger,
        })
      : undefined;
  // Every reader (the engine, the routes) goes through the gate; the ingestion writes the store itself.
  const readStore = afterListen?.store ?? store;
  const knowledgeReady = () => afterListen?.readiness() ?? true;
  // GET /ready: no traffic while a request would wait for the start-up ingestion, or after it failed.
  if (afterListen) closers.push({ name: 'knowledge', close: () => {}, ready: knowledgeReady });

  // The engine reaches tools through this indirection so POST /mcp/reload can swap the host under it.
  const currentTools: ToolHost = {
    listTools: () => tools.listTools(),
    getTool: (id) => tools.getTool(id),
    callTool: (id, args, ctx) => tools.callTool(id, args, ctx),
    close: async () => {},
  };
  const engine = new Engine({
    model,
    store: readStore,
    tools: currentTools,
    peers,
    approvals,
    threads,
    config,
    logger,
    maxOutputTokens: (role) => config.model.roles[role]?.maxTokens,
    contextWindow: (role, model) => contextWindowOf(config.model.roles[role] ?? config.model.roles.default, model),
    ownModelRoles: config.model.ownRoles,
    runStore,
    now,
    ...(cluster ? { cluster } : {}),
  });
  closers.push({ name: 'engine', close: () => engine.close() });
  // What the last process left: replayable runs, runs waiting on a human again, interrupted runs resumed or failed.
  const recovered = options.recoverRuns === false ? undefined : await engine.recover();
  if (recovered && (recovered.resumed || recovered.failed))
    logger.info('run store: recovered the runs the last process left', { ...recovered });

  return {
    store: readStore,
    ingestion,
    approvals,
    threads,
    acpSessions,
    engine,
    runStore,
    mcpEvents,
    a2aTasks,
    a2aPush,
    ...(cluster ? { cluster } : {}),
    toolStatus: () => tools.status(),
    ingestAfterListen: () => afterListen?.start(ingestNow) ?? Promise.resolve(),
    knowledgeReady,
    async reingest() {
      const report = await ingestion.ingest();
      afterListen?.reingested();
      logger.info(await rosterLine(store));
      await checkpointStore(opened).catch((err: unknown) =>
        logger.warn('knowledge store checkpoint after ingestion failed', { error: String(err) }),
      );
      // Connections follow the config now in force; the old host closes after the swap.
      const previous = tools;
      tools = await connectTools();
      await previous.close();
      return report;
    },
  };
}
