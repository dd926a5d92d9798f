/** EngineDeps: everything the engine needs, as ports. src/core.ts builds them (for the HTTP server and the stdio commands alike). */
import type { Config } from '../../config.ts';
import type { ApprovalPort } from '../../hitl/types.ts';
import type { KnowledgeStore } from '../../knowledge/store.ts';
import type { ModelClient, ModelRole } from '../../llm/types.ts';
import type { PriceCatalog } from '../../llm/prices.ts';
import type { Logger } from '../../log.ts';
import type { PeerAgentHost, ToolHost } from '../../tools/types.ts';
import type { GraphPlan } from '../../knowledge/records.ts';
import type { RunRequest } from './request.ts';
import type { ThreadStore } from '../../store/threads/types.ts';
import type { RunStore } from '../../store/runs/run-store.ts';
import type { Cluster } from '../../cluster/types.ts';

/** The slices of Config the engine reads. Pass the whole Config or just these. */
export type EngineConfig = Pick<Config, 'engine' | 'budget' | 'knowledge' | 'store' | 'cluster' | 'approvals'>;

/** Tracing hook: runs `fn` inside a span named `name` (run, node, step, tool call, a2a call). */
export type SpanRunner = <T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
) => Promise<T>;

export interface EngineDeps {
  model: ModelClient;
  store: KnowledgeStore;
  tools: ToolHost;
  /** A2A peers for `a2a` specialists; without it such steps fail with a clear error. */
  peers?: PeerAgentHost;
  approvals: ApprovalPort;
  /** Where threads are kept (docs/threads.md); without it a run sees only the messages its client sent. */
  threads?: ThreadStore;
  config: EngineConfig;
  /** Wall clock in ms since the epoch (default Date.now); budgets, rate limits and event times use it. */
  now?: () => number;
  logger?: Logger;
  /** Telemetry span helper; default: src/telemetry.ts withSpan (non-recording when telemetry is off). */
  span?: SpanRunner;
  /**
   * Prices for reserving a call's cost before it is sent. Default: `model.prices` when the model
   * client has them (createModelClient does); otherwise only cost already spent is checked.
   */
  prices?: Pick<PriceCatalog, 'cost'>;
  /**
   * Models for the five council advisors, in order (contrarian, first-principles, expansionist,
   * outsider, executor; reused round-robin when shorter). Absent: every advisor uses the
   * council_advisor role's model. A request's own council_advisor model override wins.
   */
  councilAdvisorModels?: string[];
  /**
   * The configured max output tokens of a role (PARLEY_MODEL_MAX_TOKENS and per-role overrides);
   * undefined: the role default (call-budget.ts defaultMaxOutputTokens). Each call's reservation covers it, and the call is sent
   * with it (capped by what the budgets have left).
   */
  maxOutputTokens?: (role: ModelRole) => number | undefined;
  /**
   * The context window (tokens) of the model a role calls: step outputs and inlined results are sized
   * to it (context-budget.ts). Default: the known figure for the model's name, else 32768.
   */
  contextWindow?: (role: ModelRole, model: string) => number;
  /** Roles with model settings of their own; a summarizer not among them runs on the role it serves. Default: none. */
  ownModelRoles?: readonly ModelRole[];
  /**
   * For tests and embedders that already know the plan: the router asks this first (after a mode of
   * direct or council) and runs the plan it returns as is, checked against the registry, with no team
   * lookup and no routing or planning call (route.decided stage `preset_plan`). Undefined: route as usual.
   */
  presetPlan?: (request: RunRequest) => GraphPlan | undefined;
  /**
   * Where runs are checkpointed (docs/durability.md): records, event logs, plans and finished steps.
   * Absent: runs live in memory only, as before (a restart loses them).
   */
  runStore?: RunStore;
  /**
   * The other replicas (docs/deployment.md, "Replicas"): with a shared cluster and a shared run store,
   * runs are leased, followed, cancelled and taken over across processes. Absent: this process is alone.
   */
  cluster?: Cluster;
}
