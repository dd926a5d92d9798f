/**
 * createTestParley: a whole engine for tests, built from the real pieces — the scripted model over
 * HTTP on 127.0.0.1 with the real openai-SDK model client, Kuzu in memory, the ApprovalBroker, and a
 * ToolHost (a real McpToolHost when `mcpServers` is given, otherwise one with no tools).
 * Protocol adapter tests use it; keep the signature stable (add options, never change them).
 */
import { loadConfig, type Config } from '../../src/config.ts';
import { Engine } from '../../src/graph/engine.ts';
import type { EngineDeps } from '../../src/graph/run/engine-deps.ts';
import type { GraphEvent } from '../../src/graph/run/events.ts';
import type { GraphPlan } from '../../src/graph/planning/graph-plan.ts';
import type { RunRequest } from '../../src/graph/run/request.ts';
import type { RunResult } from '../../src/graph/contract.ts';
import { ApprovalBroker } from '../../src/hitl/approvals.ts';
import type { KnowledgeStore, SpecialistRecord } from '../../src/knowledge/store.ts';
import { openKuzuStore } from '../../src/knowledge/kuzu/store.ts';
import { createModelClient, pointAtScriptedModel, type ParleyModelClient } from '../../src/llm/index.ts';
import { startScriptedModel, type FaultRule, type ScriptedModel } from '../../src/scripted-model/index.ts';
import { McpToolHost } from '../../src/tools/mcp-host.ts';
import type { McpServerSpec } from '../../src/tools/server-spec.ts';
import type { PeerAgentHost, ToolHost } from '../../src/tools/types.ts';
import { silentLogger, type Logger } from '../../src/log.ts';
import { ingestAll } from '../../src/knowledge/ingest/ingest.ts';
import { fileURLToPath } from 'node:url';
import { NO_HOME } from './home.ts';
import { openKv } from '../../src/store/kv.ts';
import { createLmdbThreadStore } from '../../src/store/threads/lmdb.ts';
import type { ThreadStore } from '../../src/store/threads/types.ts';
import { contextWindowOf } from '../../src/llm/context-windows.ts';

type Slices = Pick<Config, 'engine' | 'budget' | 'knowledge' | 'approvals' | 'tools'>;
export type TestConfigOverrides = {
  engine?: Partial<Config['engine']>;
  budget?: {
    run?: Partial<Config['budget']['run']>;
    caller?: Partial<Config['budget']['caller']>;
    thread?: Partial<Config['budget']['thread']>;
  };
  knowledge?: Partial<Config['knowledge']>;
  approvals?: Partial<Config['approvals']>;
  tools?: Partial<Config['tools']>;
};

export interface TestParleyOptions {
  /** Scripted model: fixed latency per call, per output token, and scripted faults. */
  latencyMs?: number;
  perTokenMs?: number;
  faults?: FaultRule[];
  /** Scripted-model provider profiles (docs/scripted-model.md), e.g. "reasoning" or "anthropic-compat". */
  profile?: string;
  /** Model retries of the client (default 0, so fault tests stay fast). */
  modelRetries?: number;
  /** Setting overrides on top of the defaults (env is not read). */
  config?: TestConfigOverrides;
  /** Settings given as environment variables are (e.g. PARLEY_MODEL_VERIFIER_CONTEXT_WINDOW), read like the real env. */
  env?: Record<string, string>;
  /** Specialists upserted after the default roster (same id replaces). */
  specialists?: SpecialistRecord[];
  /** false: start with an empty registry (plus `specialists`). Default true: the repo's specialists/ folder. */
  roster?: boolean;
  /** MCP servers for a real McpToolHost (mcp_config.json `mcpServers` shape). */
  mcpServers?: Record<string, McpServerSpec>;
  /** A ToolHost to use instead (wins over mcpServers). */
  tools?: ToolHost;
  peers?: PeerAgentHost;
  logger?: Logger;
  /** Max output tokens of every role (PARLEY_MODEL_MAX_TOKENS); unset: the engine's default. */
  maxOutputTokens?: number;
  /**
   * Base URL (without /v1) of another OpenAI-compatible server every role calls instead of the
   * scripted model, e.g. the relay model (src/relay-model/). The scripted model still starts.
   */
  modelUrl?: string;
}

export interface TestParley {
  engine: Engine;
  /** The scripted model server: `requests` is its live request log. */
  scripted: ScriptedModel;
  model: ParleyModelClient;
  store: KnowledgeStore;
  approvals: ApprovalBroker;
  tools: ToolHost;
  /** The thread store (LMDB in a temporary folder), as the server has it. */
  threads: ThreadStore;
  config: Config;
  deps: EngineDeps;
  /**
   * Hands the engine `plan` for every later run whose query is exactly `query` (EngineDeps.presetPlan):
   * the router runs it as is, with no team lookup and no routing or planning call.
   */
  givePlan(query: string, plan: GraphPlan): void;
  /** Starts a run (protocol "test" unless given) and collects all its events. */
  run(
    request: Omit<RunRequest, 'protocol'> & { protocol?: string },
  ): Promise<{ result: RunResult; events: GraphEvent[] }>;
  /** Shuts everything down: engine (cancels runs), tools, store, scripted model. */
  close(): Promise<void>;
}

/** The repo's default roster (specialists/*.md), ingested by the knowledge ingestion like at start-up. */
export const REPO_SPECIALISTS_DIR = fileURLToPath(new URL('../../specialists', import.meta.url));

const noTools: ToolHost = {
  listTools: async () => [],
  getTool: async () => undefined,
  callTool: async (id) => ({ ok: false, text: `no tool ${id}`, full: null, error: `no tool ${id}` }),
  close: async () => {},
};

function merge(base: Config, o: TestConfigOverrides = {}): Config {
  const merged: Slices = {
    engine: { ...base.engine, ...o.engine },
    budget: {
      run: { ...base.budget.run, ...o.budget?.run },
      caller: { ...base.budget.caller, ...o.budget?.caller },
      thread: { ...base.budget.thread, ...o.budget?.thread },
    },
    knowledge: { ...base.knowledge, ...o.knowledge },
    approvals: { ...base.approvals, ...o.approvals },
    tools: { ...base.tools, ...o.tools },
  };
  return { ...base, ...merged };
}

export async function createTestParley(options: TestParleyOptions = {}): Promise<TestParley> {
  const logger = options.logger ?? silentLogger;
  const scripted = await startScriptedModel({
    latencyMs: options.latencyMs ?? 0,
    perTokenMs: options.perTokenMs ?? 0,
    faults: options.faults,
    profile: options.profile,
  });
  const cleanups: (() => Promise<void>)[] = [() => scripted.close()];
  try {
    const base = loadConfig({
      PARLEY_HOME: NO_HOME,
      PARLEY_DATA_DIR: ':memory:',
      PARLEY_LOG_LEVEL: 'silent',
      PARLEY_MODEL_RETRY_BASE_MS: '20',
      ...options.env,
    });
    const config = merge(base, options.config);
    config.model = pointAtScriptedModel(
      { ...config.model, maxRetries: options.modelRetries ?? 0 },
      options.modelUrl ?? scripted.url,
    );
    const model = createModelClient(config.model, { logger });

    const store = await openKuzuStore({
      path: ':memory:',
      teamMatchThreshold: config.knowledge.teamMatchThreshold,
      teamMinSuccessRate: config.knowledge.teamMinSuccessRate,
    });
    cleanups.unshift(() => store.close());
    if (options.roster !== false) {
      await ingestAll({ store, skillsDirs: [REPO_SPECIALISTS_DIR], a2aPeers: [], logger });
    }
    const specialists = options.specialists ?? [];
    if (specialists.length) {
      const sources = [...new Set(specialists.map((s) => s.sourceId))];
      for (const id of sources) {
        await store.upsertSource({
          id,
          kind: 'skills',
          location: id,
          contentHash: 'test',
          ingestedAt: new Date().toISOString(),
          status: 'ok',
        });
      }
      await store.upsertSpecialists(specialists);
    }

    const approvals = new ApprovalBroker({
      timeoutMs: config.approvals.timeoutMs,
      defaultDecision: config.approvals.defaultDecision,
      recordApproval: (r) => store.recordApproval(r),
      logger,
    });
    const tools =
      options.tools ??
      (options.mcpServers
        ? new McpToolHost({ servers: options.mcpServers, settings: config.tools, approvals, logger })
        : noTools);
    cleanups.unshift(() => tools.close());

    const kv = openKv(':memory:');
    cleanups.unshift(() => kv.close());
    const threads = createLmdbThreadStore(kv, {
      maxThreadsPerCaller: config.threads.maxPerCaller,
      maxTurnsPerThread: config.threads.maxTurns,
      maxAgeMs: config.threads.maxAgeMs,
    });

    const presetPlans = new Map<string, GraphPlan>();
    const deps: EngineDeps = {
      model,
      store,
      tools,
      peers: options.peers,
      approvals,
      threads,
      config,
      logger,
      maxOutputTokens: () => options.maxOutputTokens,
      contextWindow: (role, model) => contextWindowOf(config.model.roles[role] ?? config.model.roles.default, model),
      ownModelRoles: config.model.ownRoles,
      presetPlan: (request) => presetPlans.get(request.query),
    };
    const engine = new Engine(deps);
    cleanups.unshift(() => engine.close());

    const run: TestParley['run'] = async (request) => {
      const handle = engine.start({ protocol: 'test', ...request });
      const events: GraphEvent[] = [];
      for await (const e of handle.events()) events.push(e);
      return { result: await handle.result, events };
    };
    let closed = false;
    return {
      engine,
      scripted,
      model,
      store,
      approvals,
      tools,
      threads,
      config,
      deps,
      givePlan: (query, plan) => void presetPlans.set(query, plan),
      run,
      close: async () => {
        if (closed) return;
        closed = true;
        for (const c of cleanups) await c().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const c of cleanups) await c().catch(() => undefined);
    throw err;
  }
}
