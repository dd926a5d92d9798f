/**
 * One validated Config from environment variables (and the files they point at).
 * Every setting lives in SETTINGS below with its variable, default and description;
 * docs/configuration.md lists the same table (a test keeps the two in step).
 * A wrong value stops start-up with one line naming the variable and what is allowed.
 */
import { z } from 'zod';
import { MODEL_ROLES, type ModelRole } from './llm/types.ts';
import { isProfileList } from './scripted-model/profiles.ts';
import {
  capabilityOverrides,
  STRUCTURED_STRATEGIES,
  type Capabilities,
  type StructuredStrategy,
} from './llm/capabilities.ts';
import { PRESET_IDS } from './llm/presets.ts';
import { SCRIPTED_BASE_URL } from './llm/scripted-url.ts';
import type { ModelSettings, RoleModelConfig } from './llm/settings.ts';
import { ConfigError } from './config-error.ts';
import { resolveParleyPaths, type ParleyPaths } from './home/paths.ts';

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();
const positiveNumber = z.coerce.number().positive();
const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);
const url = z.url({ protocol: /^https?$/ });
/** Host names as they appear in a Host header without the port: example.com, 10.0.0.5, [fe80::1]. */
const hostList = list.pipe(
  z.array(
    z
      .string()
      .regex(/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/i, 'host names without scheme, port or path (e.g. parley.example.com)')
      .transform((h) => h.toLowerCase()),
  ),
);
/** Browser origins: scheme://host[:port], nothing after it ("*" is not allowed: list the frontends). */
const originList = list.pipe(
  z.array(
    z
      .string()
      .refine(
        (o) =>
          URL.canParse(o) &&
          /^https?:$/.test(new URL(o).protocol) &&
          new URL(o).origin === o.replace(/\/$/, '').toLowerCase(),
        'origins like https://app.example.com (scheme://host[:port], no path, no "*")',
      )
      .transform((o) => new URL(o).origin),
  ),
);
const unitInterval = z.coerce.number().min(0).max(1);
const provider = z.enum(['auto', ...PRESET_IDS] as [string, ...string[]]);
const structured = z.enum(STRUCTURED_STRATEGIES);
/** Extra request headers: a JSON object of header name to string value. */
const headers = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a JSON object such as {"X-Tenant":"acme"}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'header names are HTTP tokens'),
      z.string().regex(/^[^\r\n\0]*$/, 'header values have no line breaks'),
    ),
  );

interface Setting {
  env: string;
  schema: z.ZodType;
  default?: string;
  description: string;
}

/** The table of every setting. Order is the order of docs/configuration.md. */
export const SETTINGS = [
  // Home
  {
    env: 'PARLEY_HOME',
    schema: z.string().min(1),
    description:
      'The Parley home: holds mcp_config.json, specialists/, prices.json (each used when present, else the shipped one) and data/. Unset: %APPDATA%\\Parley on Windows, ~/Library/Application Support/Parley on macOS, $XDG_CONFIG_HOME/parley or ~/.config/parley elsewhere. `parley init` writes editable copies into it; `--home <dir>` sets it for one command.',
  },
  // Server
  {
    env: 'PARLEY_HOST',
    schema: z.string().min(1),
    default: '127.0.0.1',
    description: 'Interface to bind. Keep 127.0.0.1 unless a proxy with TLS is in front.',
  },
  {
    env: 'PARLEY_PORT',
    schema: z.coerce.number().int().min(0).max(65535),
    default: '8787',
    description: 'TCP port (0 picks a free one).',
  },
  {
    env: 'PARLEY_API_KEYS',
    schema: list,
    default: '',
    description:
      'Comma-separated bearer API keys, one caller each: a caller sees only its own runs, approvals, sessions and memory. Empty (and no admin keys): auth off (logged once at start).',
  },
  {
    env: 'PARLEY_ADMIN_KEYS',
    schema: list,
    default: '',
    description:
      "Comma-separated bearer API keys of operators: they authenticate like API keys and also see and act on every caller's runs and approvals.",
  },
  {
    env: 'PARLEY_ALLOWED_HOSTS',
    schema: hostList,
    default: '',
    description:
      'Comma-separated host names accepted in the Host header besides localhost, 127.0.0.1 and [::1] (any port); other Hosts get 403 (DNS-rebinding protection). Bound to a non-loopback address with this empty, any Host is accepted.',
  },
  {
    env: 'PARLEY_ALLOWED_ORIGINS',
    schema: originList,
    default: '',
    description:
      'Comma-separated browser origins (scheme://host[:port]) allowed to call Parley cross-origin, with CORS; a request with any other foreign Origin gets 403.',
  },
  {
    env: 'PARLEY_BODY_LIMIT_BYTES',
    schema: positiveInt,
    default: String(1024 * 1024),
    description:
      'Largest accepted request body, and WebSocket message on /acp; a larger body gets 413, a larger message closes the socket (1009).',
  },
  {
    env: 'PARLEY_JSON_MAX_DEPTH',
    schema: positiveInt,
    default: '64',
    description:
      'Deepest nesting of arrays and objects accepted in a JSON body or message; deeper gets 400 (a JSON-RPC error on /mcp, /acp, /a2a).',
  },
  {
    env: 'PARLEY_SHUTDOWN_TIMEOUT_MS',
    schema: positiveInt,
    default: '10000',
    description: 'On SIGINT/SIGTERM, how long in-flight runs may finish before they are cancelled.',
  },
  {
    env: 'PARLEY_LOG_LEVEL',
    schema: z.enum(['debug', 'info', 'warn', 'error', 'silent']),
    default: 'info',
    description: 'Log verbosity (logs go to stderr).',
  },
  {
    env: 'PARLEY_SERVICE_IDLE_EXIT_MS',
    schema: nonNegativeInt,
    default: '900000',
    description:
      'How long a Parley service started by `parley acp`, `parley mcp` (or `parley serve --idle-exit`) keeps running with no client connected before it exits; 0: never. A service you start yourself (`npm start`, `parley serve`) never exits for idleness (docs/service.md).',
  },
  // Model access
  {
    env: 'PARLEY_MODEL_BASE_URL',
    schema: url,
    description:
      'OpenAI-compatible base URL (e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1 for Ollama). Falls back to OPENAI_BASE_URL. Unset with no API key: the built-in scripted model is used.',
  },
  {
    env: 'PARLEY_MODEL_API_KEY',
    schema: z.string().min(1),
    description: 'API key for the model endpoint. Falls back to OPENAI_API_KEY.',
  },
  {
    env: 'PARLEY_MODEL',
    schema: z.string().min(1),
    default: 'gpt-4o-mini',
    description: 'Default model for every role that has no model of its own.',
  },
  {
    env: 'PARLEY_MODEL_TEMPERATURE',
    schema: z.coerce.number().min(0).max(2),
    description: 'Default sampling temperature (unset: the provider default).',
  },
  {
    env: 'PARLEY_MODEL_MAX_TOKENS',
    schema: positiveInt,
    description:
      'Default max output tokens per call (unset: 8192). Every call is sent with it, lowered to what the budgets have left, and reserves it.',
  },
  {
    env: 'PARLEY_MODEL_PROVIDER',
    schema: provider,
    default: 'auto',
    description: `Provider preset of the model endpoint (docs/models.md): auto (detected from the base URL where unambiguous, else generic) or one of ${PRESET_IDS.join(', ')}.`,
  },
  {
    env: 'PARLEY_MODEL_STRUCTURED',
    schema: structured,
    description:
      "Structured-output strategy: json_schema (response_format), tool (a forced tool call) or prompt (schema in the prompt, tolerant extraction). Unset: the preset's, corrected at run time.",
  },
  {
    env: 'PARLEY_MODEL_CAPABILITIES',
    schema: capabilityOverrides,
    description:
      'Capability overrides on top of the preset, e.g. tools=no,stream_usage=no,max_tokens_field=max_tokens (keys: structured, tools, parallel_tool_calls, stream_usage, images, max_tokens_field, temperature).',
  },
  {
    env: 'PARLEY_MODEL_HEADERS',
    schema: headers,
    description:
      'Extra headers sent with every model request, as a JSON object, e.g. {"X-Tenant":"acme"} (gateways that want a tenant or their own auth header). Never logged.',
  },
  {
    env: 'PARLEY_MODEL_CONTEXT_WINDOW',
    schema: positiveInt,
    description:
      "Tokens the models accept, prompt and answer together (unset: the model's published figure when Parley knows its name, else 32768; docs/models.md). Step outputs and inlined results are sized to it; over it they are summarized, and the prompt says so.",
  },
  {
    env: 'PARLEY_MODEL_TIMEOUT_MS',
    schema: positiveInt,
    default: '60000',
    description: 'Per-attempt timeout of a model call.',
  },
  {
    env: 'PARLEY_MODEL_MAX_RETRIES',
    schema: nonNegativeInt,
    default: '3',
    description:
      'Retries on 429/5xx/timeouts/connection errors (exponential backoff with jitter, honours Retry-After).',
  },
  {
    env: 'PARLEY_MODEL_RETRY_BASE_MS',
    schema: positiveInt,
    default: '500',
    description: 'First backoff delay; doubles each retry, capped at 30 s.',
  },
  {
    env: 'PARLEY_PRICES_FILE',
    schema: z.string().min(1),
    description:
      'Unset: <home>/prices.json when present, else the shipped one. Price catalog (USD per million tokens, per model). Every model a role uses needs a price here (0 is a price) or in PARLEY_FREE_MODELS, or Parley refuses to start: cost budgets cannot be enforced on an unknown cost.',
  },
  {
    env: 'PARLEY_SCRIPTED_PROFILE',
    schema: z
      .string()
      .refine(isProfileList, 'a comma list of scripted-model profiles or presets (docs/scripted-model.md)'),
    default: 'openai',
    description:
      "Provider profiles of the built-in scripted model, when it is used: reproduces another provider's quirks (docs/scripted-model.md).",
  },
  {
    env: 'PARLEY_FREE_MODELS',
    schema: list,
    default: '',
    description:
      "Comma-separated models that cost nothing (local models, e.g. Ollama's llama3.2): priced at 0 without a PARLEY_PRICES_FILE entry. Their tokens still count against token budgets.",
  },
  {
    env: 'PARLEY_SCRIPTED_LATENCY_MS',
    schema: nonNegativeInt,
    default: '0',
    description: 'Fixed latency of the built-in scripted model, when it is used.',
  },
  // Knowledge graph
  {
    env: 'PARLEY_DATA_DIR',
    schema: z.string().min(1),
    description:
      'Unset: <home>/data. Where the embedded Kuzu database, the run store and the filesystem workspace live. ":memory:" keeps the graph in memory.',
  },
  {
    env: 'PARLEY_KUZU_BUFFER_POOL_MB',
    schema: z.coerce.number().int().min(64),
    default: '256',
    description:
      'Buffer pool of the embedded Kuzu database, in MiB, at least 64 (Kuzu\'s own default is 80% of RAM, which an editor-spawned process should not claim). Raise it for a large graph; ":memory:" keeps the whole graph in it.',
  },
  {
    env: 'PARLEY_DATABASE_URL',
    schema: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// or postgresql:// URL'),
    description:
      'Keep runs, checkpoints, event logs, approvals, threads, ACP sessions, MCP stream events and A2A tasks and push configs in Postgres (e.g. postgres://parley:…@db:5432/parley) instead of the data dir, so several Parley processes share them (docs/deployment.md). Migrations run at start.',
  },
  {
    env: 'PARLEY_REDIS_URL',
    schema: z.string().regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL'),
    description:
      'Run as one replica of several (docs/deployment.md, "Replicas"): approvals, cancellations, live events, run leases and the rate limit go through this Redis (e.g. redis://redis:6379). Needs PARLEY_DATABASE_URL.',
  },
  {
    env: 'PARLEY_REPLICA_LEASE_MS',
    schema: z.coerce.number().int().min(1000).max(600_000),
    default: '15000',
    description:
      "With PARLEY_REDIS_URL: how long a replica holds a run without renewing its lease (renewed every third of it). A killed replica's runs continue on a live one this long after its death, at most.",
  },
  {
    env: 'PARLEY_REPLICA_URL',
    schema: z.string().regex(/^https?:\/\/[^/\s]+\/?$/, 'an http:// or https:// URL of this replica, without a path'),
    description:
      'With PARLEY_REDIS_URL: where the other replicas reach this one (e.g. http://10.0.0.5:8787), so a request for an ACP HTTP connection that reaches another replica is passed here and /acp needs no load-balancer affinity. Default: the address Parley listens on, when that is not a wildcard (0.0.0.0, ::).',
  },
  {
    env: 'NEO4J_URI',
    schema: z.string().regex(/^(neo4j|bolt)(\+s|\+ssc)?:\/\//, 'a neo4j:// or bolt:// URI'),
    description: 'Use Neo4j instead of Kuzu (e.g. neo4j://localhost:7687).',
  },
  { env: 'NEO4J_USER', schema: z.string().min(1), default: 'neo4j', description: 'Neo4j user.' },
  { env: 'NEO4J_PASSWORD', schema: z.string(), default: '', description: 'Neo4j password.' },
  { env: 'NEO4J_DATABASE', schema: z.string().min(1), default: 'neo4j', description: 'Neo4j database name.' },
  {
    env: 'PARLEY_NEO4J_VIEW_REFRESH_MS',
    schema: positiveInt,
    default: '5000',
    description:
      'How often a Parley on Neo4j re-reads the registry and statistics other processes wrote (its own writes apply at once).',
  },
  {
    env: 'PARLEY_MCP_CONFIG',
    schema: z.string().min(1),
    description:
      'Path of the mcpServers config to ingest and connect. Unset: <home>/mcp_config.json when present, else the shipped one.',
  },
  {
    env: 'PARLEY_SKILLS_DIRS',
    schema: list,
    description:
      'Comma-separated folders of SKILL.md-style specialist files. Unset: <home>/specialists when present, else the shipped folder.',
  },
  {
    env: 'PARLEY_A2A_PEERS',
    schema: list,
    default: '',
    description: 'Comma-separated base URLs of A2A peer agents; their agent cards become specialists.',
  },
  {
    env: 'PARLEY_TOP_K',
    schema: positiveInt,
    default: '7',
    description: 'How many candidate specialists the planner sees.',
  },
  {
    env: 'PARLEY_TEAM_REUSE',
    schema: z.stringbool(),
    default: 'true',
    description:
      'Router stage 1: reuse a proven team (no planning call) for a query of the same shape as the one that taught it; false always plans.',
  },
  {
    env: 'PARLEY_TEAM_MATCH_THRESHOLD',
    schema: unitInterval,
    default: '0.8',
    description: "How similar a query must be to a proven team's pattern for reuse (0..1).",
  },
  {
    env: 'PARLEY_TEAM_MIN_SUCCESS_RATE',
    schema: unitInterval,
    default: '0.6',
    description: 'Success rate a team needs before it is reused without planning.',
  },
  {
    env: 'PARLEY_MEMORY_WINDOW',
    schema: nonNegativeInt,
    default: '5000',
    description:
      'How many of the most recent runs execution-memory search covers (held in memory; 0 turns memory search off).',
  },
  {
    env: 'PARLEY_EMBEDDINGS_MODEL',
    schema: z.string().min(1),
    description: 'Embeddings model on the model endpoint; when set, retrieval adds vector similarity.',
  },
  // Engine
  {
    env: 'PARLEY_STEP_CONCURRENCY',
    schema: positiveInt,
    default: '8',
    description: 'Steps of one run that may run at once.',
  },
  {
    env: 'PARLEY_STEP_TIMEOUT_MS',
    schema: positiveInt,
    default: '120000',
    description:
      'Default timeout of one step (a plan step may set its own). Time the step spends waiting for a human (an approval) does not count.',
  },
  {
    env: 'PARLEY_MAX_TRANSITIONS',
    schema: positiveInt,
    default: '50',
    description: 'Watchdog: node transitions before a run is failed.',
  },
  {
    env: 'PARLEY_MAX_VERIFY_ROUNDS',
    schema: positiveInt,
    default: '2',
    description: 'Verifier rounds (retry or re-plan) before the best result is synthesized as is.',
  },
  {
    env: 'PARLEY_REPLAN_ON_FAILURE',
    schema: z.stringbool(),
    default: 'true',
    description:
      'When a step fails and steps depending on it cannot run, re-plan the remaining part at once (finished steps kept) instead of waiting for the verifier; at most PARLEY_MAX_VERIFY_ROUNDS plans per run this way. false: the verifier decides.',
  },
  {
    env: 'PARLEY_TOOL_LOOP_MAX_ITERATIONS',
    schema: positiveInt,
    default: '8',
    description: "Model turns of a prompt specialist's tool loop.",
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_DEPTH',
    schema: positiveInt,
    default: '3',
    description:
      "Dynamic teams: how deep agents may spawn agents (a run's first manager is depth 0; its workers depth 1).",
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_NODES',
    schema: positiveInt,
    default: '24',
    description: 'Dynamic teams: the most steps one run may have, planned and spawned together.',
  },
  {
    env: 'PARLEY_DYNAMIC_MAX_ITERATIONS',
    schema: positiveInt,
    default: '10',
    description: "Dynamic teams: model turns of one agent's loop (think, act, observe).",
  },
  {
    env: 'PARLEY_DYNAMIC_NODE_TIMEOUT_MS',
    schema: positiveInt,
    default: '120000',
    description:
      'Dynamic teams: timeout of one agent. Time it waits for the agents it spawned, or for a human, does not count.',
  },
  {
    env: 'PARLEY_STREAM_REASONING',
    schema: z.stringbool(),
    default: 'false',
    description:
      "Stream the model's reasoning (reasoning_content / reasoning fields) as model.thought events (ACP agent_thought_chunk, AG-UI REASONING_* events); a request may turn it on or off for its run.",
  },
  {
    env: 'PARLEY_EVENT_BUFFER',
    schema: positiveInt,
    default: '2000',
    description: 'Events buffered per slow consumer before it is detached.',
  },
  {
    env: 'PARLEY_RUN_RETENTION_MS',
    schema: positiveInt,
    default: '600000',
    description: "How long a finished run's events stay replayable (SSE Last-Event-ID, /api/runs/:id/events).",
  },
  {
    env: 'PARLEY_RUN_RETENTION_MAX',
    schema: nonNegativeInt,
    default: '1000',
    description:
      'How many finished runs stay replayable at most; beyond it the oldest finished run is dropped first (bounds the memory retention takes).',
  },
  {
    env: 'PARLEY_RUN_RETENTION_MB',
    schema: nonNegativeInt,
    default: '32',
    description:
      "Heap, in MiB, that finished runs' event logs may keep: with a run store a finished run is served from the store and leaves memory at once (only a run whose events the store could not commit stays), without one its log stays in memory within this budget, the oldest dropped first.",
  },
  // Threads (docs/threads.md)
  {
    env: 'PARLEY_THREAD_HISTORY_TOKENS',
    schema: positiveInt,
    default: '4000',
    description:
      "Tokens of a thread's history given to each model call of a run (recent turns verbatim, older ones summarised, the rest left out).",
  },
  {
    env: 'PARLEY_THREAD_RECENT_TURNS',
    schema: nonNegativeInt,
    default: '4',
    description:
      'Newest turns of a thread given verbatim (when they fit the history budget); older turns are summarised.',
  },
  {
    env: 'PARLEY_THREADS_MAX_PER_CALLER',
    schema: positiveInt,
    default: '200',
    description: 'Threads kept per caller; a new thread beyond it drops the least recently used one.',
  },
  {
    env: 'PARLEY_THREAD_MAX_TURNS',
    schema: positiveInt,
    default: '200',
    description: 'Turns kept per thread; the oldest are dropped first.',
  },
  {
    env: 'PARLEY_THREAD_MAX_AGE_MS',
    schema: positiveInt,
    default: '2592000000',
    description: 'A thread not continued for this long is deleted (default 30 days).',
  },
  {
    env: 'PARLEY_IMAGE_ROLES',
    schema: z
      .string()
      .transform((s) =>
        s.trim().toLowerCase() === 'none'
          ? []
          : s
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
      )
      .pipe(z.array(z.enum(MODEL_ROLES))),
    default: 'default,planner,specialist,synthesizer',
    description:
      "Model roles whose model is sent the request's image parts (comma list, or none); the others are told how many images came and see only text. Specialists count by their model_role.",
  },
  // Budgets
  { env: 'PARLEY_RUN_MAX_TOKENS', schema: positiveInt, default: '200000', description: 'Per-run token budget.' },
  { env: 'PARLEY_RUN_MAX_COST_USD', schema: positiveNumber, default: '1', description: 'Per-run cost budget in USD.' },
  { env: 'PARLEY_RUN_MAX_MODEL_CALLS', schema: positiveInt, default: '60', description: 'Per-run model call budget.' },
  { env: 'PARLEY_RUN_MAX_TOOL_CALLS', schema: positiveInt, default: '60', description: 'Per-run tool call budget.' },
  { env: 'PARLEY_RUN_MAX_WALL_MS', schema: positiveInt, default: '600000', description: 'Per-run wall time budget.' },
  {
    env: 'PARLEY_CALLER_MAX_TOKENS',
    schema: positiveInt,
    default: '5000000',
    description: 'Tokens one caller (API key) may use per budget window.',
  },
  {
    env: 'PARLEY_CALLER_MAX_COST_USD',
    schema: positiveNumber,
    default: '50',
    description: 'Cost one caller may incur per budget window.',
  },
  {
    env: 'PARLEY_CALLER_WINDOW_MS',
    schema: positiveInt,
    default: '86400000',
    description: 'Length of the per-caller (and per-thread) budget window.',
  },
  {
    env: 'PARLEY_THREAD_MAX_TOKENS',
    schema: positiveInt,
    default: '1000000',
    description: 'Tokens the runs of one thread (one conversation of one caller) may use per budget window.',
  },
  {
    env: 'PARLEY_THREAD_MAX_COST_USD',
    schema: positiveNumber,
    default: '10',
    description: 'Cost the runs of one thread may incur per budget window.',
  },
  {
    env: 'PARLEY_RATE_LIMIT_PER_MINUTE',
    schema: positiveInt,
    default: '120',
    description: 'Runs one caller may start per minute; more get 429 with Retry-After.',
  },
  // Tools and approvals
  {
    env: 'PARLEY_APPROVAL_POLICY',
    schema: z.enum(['annotations', 'always', 'never']),
    default: 'annotations',
    description: 'Which tool calls need a human: by MCP annotations and config, always, or never.',
  },
  {
    env: 'PARLEY_APPROVAL_TIMEOUT_MS',
    schema: positiveInt,
    default: '300000',
    description:
      "How long an approval waits before the default decision applies. One request per tool call; the wait counts against the run's wall time, not the step's or tool's timeout.",
  },
  {
    env: 'PARLEY_APPROVAL_DEFAULT',
    schema: z.enum(['deny', 'accept']),
    default: 'deny',
    description: 'Decision applied when an approval times out.',
  },
  {
    env: 'PARLEY_TOOLS_CONNECT',
    schema: z.enum(['lazy', 'eager']),
    default: 'lazy',
    description: 'Connect MCP servers on first use, or all at start.',
  },
  {
    env: 'PARLEY_TOOL_TIMEOUT_MS',
    schema: positiveInt,
    default: '60000',
    description: 'Default tool call timeout (per server/tool `timeoutMs` in mcp_config.json wins).',
  },
  {
    env: 'PARLEY_BREAKER_THRESHOLD',
    schema: positiveInt,
    default: '5',
    description: "Consecutive failures that open a server's circuit breaker.",
  },
  {
    env: 'PARLEY_BREAKER_COOLDOWN_MS',
    schema: positiveInt,
    default: '30000',
    description: 'How long an open breaker fails fast before one trial call.',
  },
  {
    env: 'PARLEY_TOOL_RESULT_MAX_CHARS',
    schema: positiveInt,
    default: '20000',
    description:
      'Tool results longer than this are truncated for the model and in the tool.finished event; the rest is not kept.',
  },
  // Protocols
  {
    env: 'PARLEY_OPENAI_ROUTING',
    schema: z.enum(['auto', 'passthrough', 'orchestration', 'council']),
    default: 'auto',
    description: 'Default X-Routing-Mode of /v1/chat/completions.',
  },
  {
    env: 'PARLEY_SSE_HEARTBEAT_MS',
    schema: positiveInt,
    default: '15000',
    description: 'Heartbeat comment interval on idle event streams.',
  },
  {
    env: 'PARLEY_MCP_MAX_SESSIONS',
    schema: positiveInt,
    default: '256',
    description:
      'Open MCP sessions (/mcp) in total; over it the least recently used idle session is closed, or, with none idle, 503 with Retry-After.',
  },
  {
    env: 'PARLEY_MCP_MAX_SESSIONS_PER_CALLER',
    schema: positiveInt,
    default: '32',
    description:
      "Open MCP sessions per caller (API key); over it the caller's least recently used idle session is closed, or, with none idle, 429 with Retry-After.",
  },
  {
    env: 'PARLEY_ACP_MAX_CONNECTIONS',
    schema: positiveInt,
    default: '256',
    description:
      'Open ACP connections (/acp over HTTP and WebSocket) in total; over it the least recently used idle HTTP connection is closed, or, with none idle, 503 with Retry-After.',
  },
  {
    env: 'PARLEY_ACP_MAX_CONNECTIONS_PER_CALLER',
    schema: positiveInt,
    default: '32',
    description:
      "Open ACP connections per caller (API key); over it the caller's least recently used idle HTTP connection is closed, or, with none idle, 429 with Retry-After.",
  },
  {
    env: 'PARLEY_A2A_TASK_RETENTION_MAX',
    schema: positiveInt,
    default: '1000',
    description:
      'How many finished A2A tasks stay in the task store (GetTask, ListTasks, earlier turns of a context); beyond it the task that finished first is dropped. Running and input-required tasks are always kept.',
  },
  {
    env: 'PARLEY_A2A_PUSH_ALLOW_PRIVATE',
    schema: z.stringbool(),
    default: 'false',
    description:
      'Allow A2A push-notification webhooks on loopback, private, link-local and reserved addresses (checked when a config is set and again at each send). Off: such a webhook is refused, so a client cannot make Parley call into its network.',
  },
  {
    env: 'PARLEY_A2A_PUSH_MAX_CONFIGS',
    schema: positiveInt,
    default: '10',
    description: 'How many push-notification configs one A2A task may have; one more is refused.',
  },
  {
    env: 'PARLEY_A2A_PUSH_MAX_ATTEMPTS',
    schema: positiveInt,
    default: '8',
    description:
      'How many times a push notification is sent before it is given up (network errors, 408, 429 and 5xx are retried with exponential backoff and jitter; other answers are final).',
  },
  {
    env: 'PARLEY_A2A_PUSH_RETRY_BASE_MS',
    schema: positiveInt,
    default: '1000',
    description:
      'The first retry delay of a push notification; each retry doubles it (up to 10 minutes), with jitter. A Retry-After header wins when it asks for longer.',
  },
  {
    env: 'PARLEY_A2A_PUSH_TIMEOUT_MS',
    schema: positiveInt,
    default: '10000',
    description: 'How long one push-notification request may take before it counts as failed (and is retried).',
  },
  {
    env: 'PARLEY_A2A_GRPC_PORT',
    schema: z.coerce.number().int().min(0).max(65535),
    description:
      "Serve A2A's gRPC binding on this port (0 picks a free one), on PARLEY_HOST, announced in the agent card. Unset: no gRPC.",
  },
  {
    env: 'PARLEY_A2A_CARD_SIGNING_KEY',
    schema: z.string().min(1),
    description:
      'Sign the A2A agent card (JWS, A2A AgentCardSignature) with this private key: a path to a PEM file (PKCS#8: EC P-256 or P-384, Ed25519, or RSA), or the PEM itself. The public key is served at /.well-known/jwks.json. Unset: the card is not signed.',
  },
] as const satisfies readonly Setting[];

type SettingEnv = (typeof SETTINGS)[number]['env'];

export interface Config {
  /** The home and where each source came from (env, home or shipped): the start line and `parley init` show it. */
  paths: ParleyPaths;
  server: {
    host: string;
    port: number;
    apiKeys: string[];
    /** Keys whose caller is an admin (sees every caller's runs and approvals). */
    adminKeys: string[];
    /** Host names accepted besides the loopback names (PARLEY_ALLOWED_HOSTS). */
    allowedHosts: string[];
    /** Browser origins allowed cross-origin with CORS (PARLEY_ALLOWED_ORIGINS). */
    allowedOrigins: string[];
    bodyLimitBytes: number;
    jsonMaxDepth: number;
    shutdownTimeoutMs: number;
    logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
    /** PARLEY_SERVICE_IDLE_EXIT_MS: a bridge-started service exits after this long with no client (0: never). */
    serviceIdleExitMs: number;
  };
  model: ModelSettings;
  knowledge: {
    dataDir: string;
    /** Kuzu's buffer pool in bytes. */
    bufferPoolBytes: number;
    neo4j?: { uri: string; user: string; password: string; database: string; viewRefreshMs: number };
    /** Postgres for the run store (PARLEY_DATABASE_URL); absent: the data dir's embedded store. */
    databaseUrl?: string;
    /** Redis shared by replicas (PARLEY_REDIS_URL); absent: this process is the only one. */
    redisUrl?: string;
    /** Where other replicas reach this one (PARLEY_REPLICA_URL). */
    replicaUrl?: string;
    /** PARLEY_REPLICA_LEASE_MS. */
    replicaLeaseMs: number;
    mcpConfigPath: string;
    skillsDirs: string[];
    a2aPeers: string[];
    topK: number;
    teamReuse: boolean;
    teamMatchThreshold: number;
    teamMinSuccessRate: number;
    memoryWindow: number;
  };
  engine: {
    stepConcurrency: number;
    stepTimeoutMs: number;
    maxTransitions: number;
    maxVerifyRounds: number;
    /** Re-plan at once when a failed step leaves dependents unable to run (docs/engine.md). */
    replanOnFailure: boolean;
    toolLoopMaxIterations: number;
    /** Dynamic teams' safety rails (docs/engine.md "Dynamic teams"). */
    dynamic: { maxDepth: number; maxNodes: number; maxIterations: number; nodeTimeoutMs: number };
    /** Default of RunRequest.reasoning: stream model reasoning as model.thought events. */
    streamReasoning: boolean;
    eventBuffer: number;
    runRetentionMs: number;
    runRetentionMax: number;
    /** PARLEY_RUN_RETENTION_MB in bytes: the heap finished runs' in-memory event logs may keep. */
    runRetentionBytes: number;
    /** The history budget of a run's model calls (docs/threads.md). */
    threadHistoryTokens: number;
    threadRecentTurns: number;
    /** Roles whose model is sent image parts. */
    imageRoles: ModelRole[];
  };
  threads: { maxPerCaller: number; maxTurns: number; maxAgeMs: number };
  budget: {
    run: { tokens: number; costUsd: number; modelCalls: number; toolCalls: number; wallTimeMs: number };
    caller: { tokens: number; costUsd: number; windowMs: number; runsPerMinute: number };
    /** Per (caller, thread), over the caller's window. */
    thread: { tokens: number; costUsd: number };
  };
  approvals: { policy: 'annotations' | 'always' | 'never'; timeoutMs: number; defaultDecision: 'deny' | 'accept' };
  tools: {
    connect: 'lazy' | 'eager';
    timeoutMs: number;
    breakerThreshold: number;
    breakerCooldownMs: number;
    resultMaxChars: number;
  };
  protocols: {
    openaiRouting: 'auto' | 'passthrough' | 'orchestration' | 'council';
    sseHeartbeatMs: number;
    a2aTaskRetentionMax: number;
    a2aPush: { allowPrivate: boolean; maxConfigs: number; maxAttempts: number; retryBaseMs: number; timeoutMs: number };
    /** PARLEY_A2A_GRPC_PORT: the A2A gRPC binding's port; absent, no gRPC. */
    a2aGrpcPort?: number;
    /** PARLEY_A2A_CARD_SIGNING_KEY: a PEM private key or the path of one; absent, the card is not signed. */
    a2aCardSigningKey?: string;
    mcpSessions: { total: number; perCaller: number };
    acpConnections: { total: number; perCaller: number };
  };
}

/** Defined where the folders that throw or use them can reach them without importing config.ts. */
export { ConfigError } from './config-error.ts';
export { SCRIPTED_BASE_URL } from './llm/scripted-url.ts';
export type { ModelSettings, RoleModelConfig } from './llm/settings.ts';

type Env = Record<string, string | undefined>;

/** Settings whose values are secrets: an error names them without quoting the value. */
export const SECRET_SETTING = /(_KEYS?|_PASSWORD|_HEADERS|_DATABASE_URL|_REDIS_URL)$/;

function readSetting(env: Env, setting: Setting): unknown {
  const raw = env[setting.env];
  const value = raw === undefined || raw === '' ? setting.default : raw;
  if (value === undefined) return undefined;
  const parsed = setting.schema.safeParse(value);
  if (!parsed.success) {
    const allowed = parsed.error.issues.map((i) => i.message).join('; ');
    // Secrets (keys, passwords, headers that may carry auth) are named, never quoted: errors reach logs.
    const shown = SECRET_SETTING.test(setting.env) ? '(value not shown)' : `=${JSON.stringify(value)}`;
    throw new ConfigError(`${setting.env}${shown.startsWith('=') ? shown : ` ${shown}`} is invalid: ${allowed}`);
  }
  return parsed.data;
}

const roleEnvName = (role: ModelRole) => `PARLEY_MODEL_${role.toUpperCase()}`;

/** Per-role overrides: PARLEY_MODEL_<ROLE>, PARLEY_MODEL_<ROLE>_BASE_URL, _API_KEY, _TEMPERATURE, _MAX_TOKENS, _TIMEOUT_MS. */
export const ROLE_SETTING_SUFFIXES = {
  '': { schema: z.string().min(1), description: 'model name' },
  _BASE_URL: { schema: url, description: 'base URL' },
  _API_KEY: { schema: z.string().min(1), description: 'API key' },
  _TEMPERATURE: { schema: z.coerce.number().min(0).max(2), description: 'temperature' },
  _MAX_TOKENS: { schema: positiveInt, description: 'max output tokens' },
  _TIMEOUT_MS: { schema: positiveInt, description: 'timeout' },
  _PROVIDER: { schema: provider, description: 'provider preset' },
  _STRUCTURED: { schema: structured, description: 'structured-output strategy' },
  _CAPABILITIES: { schema: capabilityOverrides, description: 'capability overrides' },
  _HEADERS: { schema: headers, description: 'extra request headers (replace the default ones)' },
  _CONTEXT_WINDOW: { schema: positiveInt, description: 'context window in tokens' },
} as const;

export function loadConfig(env: Env = process.env): Config {
  const v = Object.fromEntries(SETTINGS.map((s) => [s.env, readSetting(env, s)])) as Record<SettingEnv, never>;
  const get = <T>(name: SettingEnv): T => v[name] as T;

  const baseUrl = get<string | undefined>('PARLEY_MODEL_BASE_URL') ?? (env.OPENAI_BASE_URL || undefined);
  const apiKey = get<string | undefined>('PARLEY_MODEL_API_KEY') ?? (env.OPENAI_API_KEY || undefined);
  if (baseUrl !== undefined && !url.safeParse(baseUrl).success) {
    throw new ConfigError(`OPENAI_BASE_URL=${JSON.stringify(baseUrl)} is invalid: an http(s) URL`);
  }
  const scripted = baseUrl === undefined && apiKey === undefined;
  const defaults: RoleModelConfig = {
    model: scripted && env.PARLEY_MODEL === undefined ? 'scripted' : get<string>('PARLEY_MODEL'),
    baseUrl: baseUrl ?? (scripted ? SCRIPTED_BASE_URL : 'https://api.openai.com/v1'),
    apiKey: apiKey ?? 'not-needed',
    temperature: get<number | undefined>('PARLEY_MODEL_TEMPERATURE'),
    maxTokens: get<number | undefined>('PARLEY_MODEL_MAX_TOKENS'),
    timeoutMs: get<number>('PARLEY_MODEL_TIMEOUT_MS'),
    provider: get<string>('PARLEY_MODEL_PROVIDER'),
    structured: get<StructuredStrategy | undefined>('PARLEY_MODEL_STRUCTURED'),
    capabilities: get<Partial<Capabilities> | undefined>('PARLEY_MODEL_CAPABILITIES'),
    headers: get<Record<string, string> | undefined>('PARLEY_MODEL_HEADERS'),
    contextWindow: get<number | undefined>('PARLEY_MODEL_CONTEXT_WINDOW'),
  };
  const ownRoles: ModelRole[] = [];
  const roles = Object.fromEntries(
    MODEL_ROLES.map((role) => {
      const cfg: RoleModelConfig = { ...defaults };
      if (role !== 'default') {
        const read = (suffix: keyof typeof ROLE_SETTING_SUFFIXES) =>
          readSetting(env, { env: roleEnvName(role) + suffix, ...ROLE_SETTING_SUFFIXES[suffix] });
        cfg.model = (read('') as string | undefined) ?? cfg.model;
        cfg.baseUrl = (read('_BASE_URL') as string | undefined) ?? cfg.baseUrl;
        cfg.apiKey = (read('_API_KEY') as string | undefined) ?? cfg.apiKey;
        cfg.temperature = (read('_TEMPERATURE') as number | undefined) ?? cfg.temperature;
        cfg.maxTokens = (read('_MAX_TOKENS') as number | undefined) ?? cfg.maxTokens;
        cfg.timeoutMs = (read('_TIMEOUT_MS') as number | undefined) ?? cfg.timeoutMs;
        cfg.provider = (read('_PROVIDER') as string | undefined) ?? cfg.provider;
        cfg.structured = (read('_STRUCTURED') as StructuredStrategy | undefined) ?? cfg.structured;
        const caps = read('_CAPABILITIES') as Partial<Capabilities> | undefined;
        if (caps) cfg.capabilities = { ...cfg.capabilities, ...caps };
        cfg.headers = (read('_HEADERS') as Record<string, string> | undefined) ?? cfg.headers;
        cfg.contextWindow = (read('_CONTEXT_WINDOW') as number | undefined) ?? cfg.contextWindow;
        const suffixes = Object.keys(ROLE_SETTING_SUFFIXES);
        if (suffixes.some((suffix) => (env[roleEnvName(role) + suffix] ?? '') !== '')) ownRoles.push(role);
      }
      return [role, cfg];
    }),
  ) as Record<ModelRole, RoleModelConfig>;

  const neo4jUri = get<string | undefined>('NEO4J_URI');
  if (get<string | undefined>('PARLEY_REDIS_URL') && !get<string | undefined>('PARLEY_DATABASE_URL')) {
    // Replicas share their durable state through Postgres; Redis alone would leave each with its own.
    throw new ConfigError('PARLEY_REDIS_URL needs PARLEY_DATABASE_URL: replicas keep their runs in one Postgres');
  }
  // A variable's own value is kept as given (a relative path reads from the folder Parley starts in,
  // and errors quote it as the user wrote it); otherwise the home's copy or the shipped default.
  const paths = resolveParleyPaths(env);
  return {
    paths,
    server: {
      host: get('PARLEY_HOST'),
      port: get('PARLEY_PORT'),
      apiKeys: get('PARLEY_API_KEYS'),
      adminKeys: get('PARLEY_ADMIN_KEYS'),
      allowedHosts: get('PARLEY_ALLOWED_HOSTS'),
      allowedOrigins: get('PARLEY_ALLOWED_ORIGINS'),
      bodyLimitBytes: get('PARLEY_BODY_LIMIT_BYTES'),
      jsonMaxDepth: get('PARLEY_JSON_MAX_DEPTH'),
      shutdownTimeoutMs: get('PARLEY_SHUTDOWN_TIMEOUT_MS'),
      logLevel: get('PARLEY_LOG_LEVEL'),
      serviceIdleExitMs: get('PARLEY_SERVICE_IDLE_EXIT_MS'),
    },
    model: {
      scripted,
      scriptedLatencyMs: get('PARLEY_SCRIPTED_LATENCY_MS'),
      scriptedProfile: get('PARLEY_SCRIPTED_PROFILE'),
      maxRetries: get('PARLEY_MODEL_MAX_RETRIES'),
      retryBaseMs: get('PARLEY_MODEL_RETRY_BASE_MS'),
      pricesFile: get<string | undefined>('PARLEY_PRICES_FILE') ?? paths.prices.path,
      freeModels: get('PARLEY_FREE_MODELS'),
      embeddingsModel: get('PARLEY_EMBEDDINGS_MODEL'),
      roles,
      ownRoles,
    },
    knowledge: {
      dataDir: get<string | undefined>('PARLEY_DATA_DIR') ?? paths.dataDir,
      ...(get<string | undefined>('PARLEY_DATABASE_URL') ? { databaseUrl: get<string>('PARLEY_DATABASE_URL') } : {}),
      ...(get<string | undefined>('PARLEY_REDIS_URL') ? { redisUrl: get<string>('PARLEY_REDIS_URL') } : {}),
      ...(get<string | undefined>('PARLEY_REPLICA_URL')
        ? { replicaUrl: get<string>('PARLEY_REPLICA_URL').replace(/\/$/, '') }
        : {}),
      replicaLeaseMs: get<number>('PARLEY_REPLICA_LEASE_MS'),
      bufferPoolBytes: get<number>('PARLEY_KUZU_BUFFER_POOL_MB') * 1024 * 1024,
      neo4j: neo4jUri
        ? {
            uri: neo4jUri,
            user: get('NEO4J_USER'),
            password: get('NEO4J_PASSWORD'),
            database: get('NEO4J_DATABASE'),
            viewRefreshMs: get('PARLEY_NEO4J_VIEW_REFRESH_MS'),
          }
        : undefined,
      mcpConfigPath: get<string | undefined>('PARLEY_MCP_CONFIG') ?? paths.mcpConfig.path,
      skillsDirs:
        paths.skillsDirs[0]?.from === 'env' ? get<string[]>('PARLEY_SKILLS_DIRS') : paths.skillsDirs.map((d) => d.path),
      a2aPeers: get('PARLEY_A2A_PEERS'),
      topK: get('PARLEY_TOP_K'),
      teamReuse: get('PARLEY_TEAM_REUSE'),
      teamMatchThreshold: get('PARLEY_TEAM_MATCH_THRESHOLD'),
      teamMinSuccessRate: get('PARLEY_TEAM_MIN_SUCCESS_RATE'),
      memoryWindow: get('PARLEY_MEMORY_WINDOW'),
    },
    engine: {
      stepConcurrency: get('PARLEY_STEP_CONCURRENCY'),
      stepTimeoutMs: get('PARLEY_STEP_TIMEOUT_MS'),
      maxTransitions: get('PARLEY_MAX_TRANSITIONS'),
      maxVerifyRounds: get('PARLEY_MAX_VERIFY_ROUNDS'),
      replanOnFailure: get('PARLEY_REPLAN_ON_FAILURE'),
      toolLoopMaxIterations: get('PARLEY_TOOL_LOOP_MAX_ITERATIONS'),
      dynamic: {
        maxDepth: get('PARLEY_DYNAMIC_MAX_DEPTH'),
        maxNodes: get('PARLEY_DYNAMIC_MAX_NODES'),
        maxIterations: get('PARLEY_DYNAMIC_MAX_ITERATIONS'),
        nodeTimeoutMs: get('PARLEY_DYNAMIC_NODE_TIMEOUT_MS'),
      },
      streamReasoning: get('PARLEY_STREAM_REASONING'),
      eventBuffer: get('PARLEY_EVENT_BUFFER'),
      runRetentionMs: get('PARLEY_RUN_RETENTION_MS'),
      runRetentionMax: get('PARLEY_RUN_RETENTION_MAX'),
      runRetentionBytes: get<number>('PARLEY_RUN_RETENTION_MB') * 1024 * 1024,
      threadHistoryTokens: get('PARLEY_THREAD_HISTORY_TOKENS'),
      threadRecentTurns: get('PARLEY_THREAD_RECENT_TURNS'),
      imageRoles: get('PARLEY_IMAGE_ROLES'),
    },
    threads: {
      maxPerCaller: get('PARLEY_THREADS_MAX_PER_CALLER'),
      maxTurns: get('PARLEY_THREAD_MAX_TURNS'),
      maxAgeMs: get('PARLEY_THREAD_MAX_AGE_MS'),
    },
    budget: {
      run: {
        tokens: get('PARLEY_RUN_MAX_TOKENS'),
        costUsd: get('PARLEY_RUN_MAX_COST_USD'),
        modelCalls: get('PARLEY_RUN_MAX_MODEL_CALLS'),
        toolCalls: get('PARLEY_RUN_MAX_TOOL_CALLS'),
        wallTimeMs: get('PARLEY_RUN_MAX_WALL_MS'),
      },
      caller: {
        tokens: get('PARLEY_CALLER_MAX_TOKENS'),
        costUsd: get('PARLEY_CALLER_MAX_COST_USD'),
        windowMs: get('PARLEY_CALLER_WINDOW_MS'),
        runsPerMinute: get('PARLEY_RATE_LIMIT_PER_MINUTE'),
      },
      thread: {
        tokens: get('PARLEY_THREAD_MAX_TOKENS'),
        costUsd: get('PARLEY_THREAD_MAX_COST_USD'),
      },
    },
    approvals: {
      policy: get('PARLEY_APPROVAL_POLICY'),
      timeoutMs: get('PARLEY_APPROVAL_TIMEOUT_MS'),
      defaultDecision: get('PARLEY_APPROVAL_DEFAULT'),
    },
    tools: {
      connect: get('PARLEY_TOOLS_CONNECT'),
      timeoutMs: get('PARLEY_TOOL_TIMEOUT_MS'),
      breakerThreshold: get('PARLEY_BREAKER_THRESHOLD'),
      breakerCooldownMs: get('PARLEY_BREAKER_COOLDOWN_MS'),
      resultMaxChars: get('PARLEY_TOOL_RESULT_MAX_CHARS'),
    },
    protocols: {
      openaiRouting: get('PARLEY_OPENAI_ROUTING'),
      sseHeartbeatMs: get('PARLEY_SSE_HEARTBEAT_MS'),
      a2aTaskRetentionMax: get('PARLEY_A2A_TASK_RETENTION_MAX'),
      a2aPush: {
        allowPrivate: get('PARLEY_A2A_PUSH_ALLOW_PRIVATE'),
        maxConfigs: get('PARLEY_A2A_PUSH_MAX_CONFIGS'),
        maxAttempts: get('PARLEY_A2A_PUSH_MAX_ATTEMPTS'),
        retryBaseMs: get('PARLEY_A2A_PUSH_RETRY_BASE_MS'),
        timeoutMs: get('PARLEY_A2A_PUSH_TIMEOUT_MS'),
      },
      ...(get<number | undefined>('PARLEY_A2A_GRPC_PORT') !== undefined
        ? { a2aGrpcPort: get<number>('PARLEY_A2A_GRPC_PORT') }
        : {}),
      ...(get<string | undefined>('PARLEY_A2A_CARD_SIGNING_KEY')
        ? { a2aCardSigningKey: get<string>('PARLEY_A2A_CARD_SIGNING_KEY') }
        : {}),
      mcpSessions: { total: get('PARLEY_MCP_MAX_SESSIONS'), perCaller: get('PARLEY_MCP_MAX_SESSIONS_PER_CALLER') },
      acpConnections: {
        total: get('PARLEY_ACP_MAX_CONNECTIONS'),
        perCaller: get('PARLEY_ACP_MAX_CONNECTIONS_PER_CALLER'),
      },
    },
  };
}
