/**
 * Builds Parley's real engine in-process for the benchmark, the way the composition root does:
 * the openai-SDK model client pointed at the scripted model process, Kuzu on a database file (as
 * shipped: ./data/knowledge.kuzu; here in a fresh temporary folder, removed at close) holding the
 * workload's roster, the ApprovalBroker, and a tool host with no tools (the workload calls none).
 * Settings that would cap the benchmark itself are raised, and said so (docs/performance.md).
 */
import type { Pool } from 'pg';
import { openKv, type Kv } from '../../src/store/kv.ts';
import { openLmdbRunStore } from '../../src/store/runs/lmdb/lmdb-run-store.ts';
import { reliableRunStore } from '../../src/store/runs/reliable-run-store.ts';
import { createLmdbThreadStore } from '../../src/store/threads/lmdb.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { Engine } from '../../src/graph/engine.ts';
import { ApprovalBroker } from '../../src/hitl/approvals.ts';
import { openKuzuStore } from '../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore, SpecialistRecord } from '../../src/knowledge/store.ts';
import { createModelClient, pointAtScriptedModel } from '../../src/llm/index.ts';
import { silentLogger } from '../../src/log.ts';
import type { ToolHost } from '../../src/tools/types.ts';
import { ROSTER, specialistPrompt } from '../lib/workload.ts';

export interface BenchEngineOptions {
  /** Base URL of the scripted model (…/v1). */
  modelUrl: string;
  /** false: run, approval and decision records are dropped (a no-op in front of Kuzu). */
  knowledgeWrites: boolean;
  /** Override of PARLEY_RUN_RETENTION_MS (default: the shipped default). */
  runRetentionMs?: number;
  /**
   * PARLEY_DATABASE_URL: runs and threads in this Postgres (migrated here, as src/core.ts does)
   * instead of LMDB in the data dir; Kuzu stays the knowledge store either way.
   */
  databaseUrl?: string;
  /** Wraps the store the engine sees (profiling: time each store call). */
  wrapStore?: (store: KnowledgeStore) => KnowledgeStore;
}

export interface BenchEngine {
  engine: Engine;
  store: KnowledgeStore;
  config: Config;
  /** The LMDB environment of the run and thread stores (undefined with PARLEY_BENCH_RUN_STORE=off). */
  kv?: Kv;
  close(): Promise<void>;
}

const noTools: ToolHost = {
  listTools: async () => [],
  getTool: async () => undefined,
  callTool: async (id) => ({ ok: false, text: `no tool ${id}`, full: null, error: `no tool ${id}` }),
  close: async () => {},
};

/**
 * The KnowledgeStore with its execution-memory writes turned into no-ops (registry reads stay real).
 * A wrapper from outside: every other method is the store's own, called on the store itself (its
 * state is in #private fields, so a derived object such as Object.create(store) cannot call them).
 */
export function withoutWrites(store: KnowledgeStore): KnowledgeStore {
  return {
    upsertSource: (source) => store.upsertSource(source),
    getSource: (id) => store.getSource(id),
    upsertSpecialists: (specialists) => store.upsertSpecialists(specialists),
    upsertTools: (tools) => store.upsertTools(tools),
    markGone: (sourceId, keepSpecialistIds, keepToolIds) => store.markGone(sourceId, keepSpecialistIds, keepToolIds),
    listSpecialists: (filter) => store.listSpecialists(filter),
    getSpecialist: (id) => store.getSpecialist(id),
    listTools: (server) => store.listTools(server),
    getTool: (id) => store.getTool(id),
    retrieveSpecialists: (query, k) => store.retrieveSpecialists(query, k),
    findTeamConfig: (query, scope) => store.findTeamConfig(query, scope),
    recordRun: async () => {},
    settleRuns: async () => {},
    getRun: (id) => store.getRun(id),
    listRuns: (options) => store.listRuns(options),
    getProficiency: (subject, kind) => store.getProficiency(subject, kind),
    searchMemory: (query, k, scope) => store.searchMemory(query, k, scope),
    recordApproval: async () => {},
    listApprovals: (runId) => store.listApprovals(runId),
    recordDecision: async () => {},
    listDecisions: (limit, scope) => store.listDecisions(limit, scope),
    getDecision: (id) => store.getDecision(id),
    close: () => store.close(),
  };
}

export function benchConfig(options: Pick<BenchEngineOptions, 'runRetentionMs'>): Config {
  const env: Record<string, string> = {
    PARLEY_DATA_DIR: ':memory:',
    PARLEY_LOG_LEVEL: 'silent',
    PARLEY_MODEL_MAX_RETRIES: '0',
    // Every specialist of the widest workload (N = 16) runs at once, as with the other contenders.
    PARLEY_STEP_CONCURRENCY: '16',
    // Per-caller limits exist to protect a deployment; here one caller starts 100k runs.
    PARLEY_RATE_LIMIT_PER_MINUTE: '100000000',
    PARLEY_CALLER_MAX_TOKENS: '100000000000',
    PARLEY_CALLER_MAX_COST_USD: '100000000',
  };
  if (options.runRetentionMs !== undefined) env.PARLEY_RUN_RETENTION_MS = String(options.runRetentionMs);
  return loadConfig(env);
}

export const ROSTER_RECORDS: SpecialistRecord[] = ROSTER.map((s) => ({
  id: s.id,
  name: s.id,
  description: s.description,
  kind: 'prompt',
  domains: s.domains,
  prompt: specialistPrompt(s),
  endpoint: '',
  modelRole: 'specialist',
  tools: [],
  sourceId: 'skills:bench',
  available: true,
}));

export async function createBenchEngine(options: BenchEngineOptions): Promise<BenchEngine> {
  const config = benchConfig(options);
  config.model = pointAtScriptedModel(config.model, options.modelUrl.replace(/\/v1\/?$/, ''));
  const model = createModelClient(config.model, { logger: silentLogger });
  // A file, as production: an in-memory Kuzu database never checkpoints, so it holds every update's
  // versions in memory for good (docs/knowledge.md, Memory) and would not measure what ships.
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-kg-'));
  const kuzu = await openKuzuStore({
    path: join(dir, 'knowledge.kuzu'),
    teamMatchThreshold: config.knowledge.teamMatchThreshold,
    teamMinSuccessRate: config.knowledge.teamMinSuccessRate,
  }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  await kuzu.upsertSource({
    id: 'skills:bench',
    kind: 'skills',
    location: 'bench',
    contentHash: 'bench',
    ingestedAt: new Date().toISOString(),
    status: 'ok',
  });
  await kuzu.upsertSpecialists(ROSTER_RECORDS);
  const unwrapped = options.knowledgeWrites ? kuzu : withoutWrites(kuzu);
  const store = options.wrapStore ? options.wrapStore(unwrapped) : unwrapped;
  const approvals = new ApprovalBroker({
    timeoutMs: config.approvals.timeoutMs,
    defaultDecision: config.approvals.defaultDecision,
    recordApproval: (r) => store.recordApproval(r),
    logger: silentLogger,
  });
  // The run store and the thread store as src/core.ts builds them (docs/durability.md, docs/threads.md):
  // LMDB in the data dir (or Postgres with databaseUrl) behind the run store's ordered, retried write
  // queue, every run's turn stored in its thread. PARLEY_BENCH_RUN_STORE=off measures without both.
  const durable = process.env.PARLEY_BENCH_RUN_STORE !== 'off';
  const retention = {
    maxThreadsPerCaller: config.threads.maxPerCaller,
    maxTurnsPerThread: config.threads.maxTurns,
    maxAgeMs: config.threads.maxAgeMs,
  };
  // Loaded only with databaseUrl, as src/core.ts does: the LMDB contenders never load the driver.
  const pg = durable && options.databaseUrl ? await import('../../src/store/postgres/index.ts') : undefined;
  const database: Pool | undefined = await pg?.openDatabase(options.databaseUrl, silentLogger).catch(async (err) => {
    await kuzu.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const kv = durable && !database ? openKv(dir) : undefined;
  const runStore =
    pg && database
      ? reliableRunStore(pg.openPostgresRunStore(database, { closePool: false }), {
          logger: silentLogger,
          isPermanent: pg.permanentPostgresError,
        })
      : kv
        ? reliableRunStore(openLmdbRunStore(kv, { closeKv: false }), { logger: silentLogger })
        : undefined;
  const threads =
    pg && database
      ? pg.createPostgresThreadStore(database, retention)
      : kv
        ? createLmdbThreadStore(kv, retention)
        : undefined;
  const engine = new Engine({
    model,
    store,
    tools: noTools,
    approvals,
    config,
    logger: silentLogger,
    ...(runStore ? { runStore } : {}),
    ...(threads ? { threads } : {}),
  });
  return {
    engine,
    store,
    config,
    ...(kv ? { kv } : {}),
    close: async () => {
      try {
        await engine.close();
        await runStore?.close();
        await kv?.close();
        await database?.end();
        await kuzu.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
