/**
 * The composition root: builds every part of Parley from one Config and wires them together, then
 * serves the HTTP app. No module-level singletons: each createParley() is independent (tests build many).
 *
 * To add a part, in createParley():
 *   - a lifecycle resource: `resources.push({ name, close, ready? })` — closed in reverse order on shutdown,
 *     `ready` feeds GET /ready;
 *   - a route group: `routes.push({ path: '/api', app: approvalRoutes(deps) })` — mounted after auth, the
 *     body limit and the JSON error handler, so every route gets them.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { VERSION } from './version.ts';
import { releaseYoungGeneration } from './young-generation.ts';
import { createHttpApp, JSON_RPC_PATHS, type ReadinessCheck, type RouteGroup } from './http/app.ts';
import type { ParleyEnv } from './http/auth.ts';
import {
  checkPricedModels,
  createModelClient,
  loadPriceCatalog,
  pointAtScriptedModel,
  type ParleyModelClient,
} from './llm/index.ts';
import { startScriptedModel, type ScriptedModel } from './scripted-model/index.ts';
import { startTelemetry } from './telemetry.ts';
import { createCore, type Closer, type Core } from './core.ts';
import { authEnabled, authenticateBearer, bearerIsToken, callerOf } from './http/auth.ts';
import { isLoopback, originPolicy } from './http/request-origin.ts';
import { refuseUpgrade } from './http/upgrade.ts';
import { answerClientError } from './http/client-error.ts';
import { refuseConnect } from './http/methods.ts';
import type { CappedClient } from './protocols/acp/index.ts';
import { runningRunsOf } from './graph/durable/running-run.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { approvalRoutes } from './hitl/routes.ts';
import { aguiRoutes } from './protocols/agui/index.ts';
import { evalRoutes, sseRoutes, threadRoutes, timeTravelRoutes } from './protocols/sse/index.ts';
import { timeTravel as createTimeTravel } from './graph/timetravel/index.ts';
import { openaiRoutes } from './protocols/openai/index.ts';
import { a2aEndpoint, cardSigner, JWKS_PATH } from './protocols/a2a/index.ts';
import { clusterEventBus, mcpRoutes, stateKeySource } from './protocols/mcp/index.ts';
import { acpRoutes, acpWebSocket, connectionDirectory, modelChoices } from './protocols/acp/index.ts';
import { CONSOLE_PUBLIC_PATHS, consoleBuilt, consoleRoutes } from './console/routes.ts';

/** Addresses a server listens on that no other machine can dial as such. */
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '']);

/** The built-in scripted model runs for the life of the server: its request log keeps the latest calls only. */
const SCRIPTED_LOG_LIMIT = 1000;

export { VERSION };

/** Something with a lifecycle that createParley started and close() must stop (the same shape the core pushes). */
export type Resource = Closer;

export interface ParleyOptions {
  logger?: Logger;
  /** Extra route groups (tests mount probes; embedders add their own). */
  routes?: RouteGroup[];
  /** Start OpenTelemetry from OTEL_* env vars (default true; it stays off unless those are set). */
  telemetry?: boolean;
  /**
   * Ingest the knowledge sources while starting (default true; serveParley: 'after-listen', so
   * discovering the MCP servers is not part of the time to listen: CoreOptions.ingestAtStart).
   */
  ingestAtStart?: boolean | 'after-listen';
  /** Pick up the runs the last process left in the run store (CoreOptions.recoverRuns, default true). */
  recoverRuns?: boolean;
  /** The local service token the stdio bridges authenticate with (docs/service.md); none by default. */
  localToken?: string;
  /** The engine's clock (CoreOptions.now; default Date.now): tests and the prompt tour fix the date models are told. */
  now?: () => number;
}

export interface Parley extends Pick<
  Core,
  | 'engine'
  | 'approvals'
  | 'store'
  | 'reingest'
  | 'threads'
  | 'acpSessions'
  | 'runStore'
  | 'ingestAfterListen'
  | 'knowledgeReady'
> {
  config: Config;
  app: Hono<ParleyEnv>;
  model: ParleyModelClient;
  /** The in-process scripted model, when no real model endpoint is configured. */
  scripted?: ScriptedModel;
  logger: Logger;
  /** Binds config.server.host:port; resolves with the address it listens on. */
  listen(): Promise<{ url: string; port: number }>;
  /** Open TCP connections to the listening server (a bridge holds one for its life: docs/service.md). */
  openConnections(): number;
  /** Stops accepting, waits up to shutdownTimeoutMs for in-flight requests, then closes every resource. */
  close(): Promise<void>;
}

export async function createParley(config: Config, options: ParleyOptions = {}): Promise<Parley> {
  const logger = options.logger ?? createLogger(config.server.logLevel);
  const resources: Resource[] = [];
  const routes: RouteGroup[] = [];
  /** This replica's address once it listens on a specific (not wildcard) one. */
  let reachableUrl: string | undefined;

  try {
    if (options.telemetry !== false) {
      const telemetry = await startTelemetry(logger);
      if (telemetry.enabled) resources.push({ name: 'telemetry', close: () => telemetry.shutdown() });
    }

    // Read files named by settings first, so a wrong one stops start-up before anything starts.
    const prices = loadPriceCatalog(config.model.pricesFile, config.model.freeModels);
    checkPricedModels(config.model.roles, prices, config.model.pricesFile);
    const a2aSigner = config.protocols.a2aCardSigningKey
      ? await cardSigner(config.protocols.a2aCardSigningKey)
      : undefined;

    let modelConfig = config.model;
    let scripted: ScriptedModel | undefined;
    if (config.model.scripted) {
      scripted = await startScriptedModel({
        latencyMs: config.model.scriptedLatencyMs,
        profile: config.model.scriptedProfile,
        logLimit: SCRIPTED_LOG_LIMIT,
      });
      const model = scripted;
      resources.push({ name: 'scripted-model', close: () => model.close(), ready: () => true });
      modelConfig = pointAtScriptedModel(config.model, scripted.url);
      logger.info(
        `Answers are SCRIPTED: no model endpoint is configured, so Parley's built-in scripted model answers (${scripted.url}/v1). ` +
          'To use a real model set PARLEY_MODEL_API_KEY (or OPENAI_API_KEY), and PARLEY_MODEL_BASE_URL for a non-OpenAI endpoint; see docs/configuration.md.',
      );
    }
    const model = createModelClient(modelConfig, { logger, prices });

    const core = await createCore(config, model, logger, resources, {
      ingestAtStart: options.ingestAtStart,
      ...(options.recoverRuns !== undefined ? { recoverRuns: options.recoverRuns } : {}),
      ...(options.now ? { now: options.now } : {}),
      modelConfig,
    });
    const { engine, approvals, store } = core;
    const callerId = (c: Context) => callerOf(c).id;
    const bearerCaller = authenticateBearer(config.server.apiKeys, config.server.adminKeys, options.localToken);
    const a2a = a2aEndpoint({
      engine,
      store,
      config,
      logger,
      version: VERSION,
      callerOf: callerId,
      tasks: core.a2aTasks,
      push: core.a2aPush,
      ...(core.cluster ? { cluster: core.cluster } : {}),
      resources,
      ...(config.protocols.a2aGrpcPort !== undefined
        ? {
            grpc: {
              host: config.server.host,
              port: config.protocols.a2aGrpcPort,
              authenticate: (authorization: string | undefined) => bearerCaller(authorization)?.id,
            },
          }
        : {}),
      ...(a2aSigner ? { signer: a2aSigner } : {}),
    });

    const timeTravel = createTimeTravel({ engine, store, runStore: core.runStore });
    routes.push(
      // Before knowledgeRoutes: its /api/runs/:id would read /api/runs/compare as a run id.
      { path: '/', app: timeTravelRoutes({ timeTravel, logger }) },
      { path: '/', app: evalRoutes({ dataDir: config.store.dataDir, logger }) },
      {
        path: '/',
        app: knowledgeRoutes({
          store,
          reingest: () => core.reingest(),
          mcpConfig: () => core.ingestion.mcpConfig(),
          running: runningRunsOf(core.runStore),
          toolStatus: () => core.toolStatus(),
        }),
      },
      { path: '/', app: approvalRoutes({ broker: approvals }) },
      { path: '/', app: aguiRoutes({ engine, config, logger }) },
      { path: '/', app: sseRoutes({ engine, config, logger }) },
      { path: '/', app: threadRoutes({ threads: core.threads, logger }) },
      { path: '/', app: openaiRoutes({ engine, config, logger, upstream: modelConfig.roles.default }) },
      { path: '/', app: a2a.app },
    );
    // Replicas: a run recorded here reaches 2026-07-28 listen streams on every replica.
    const listenBus = core.cluster?.shared ? clusterEventBus(core.cluster, logger) : undefined;
    // Sessions close before the engine (resources close in reverse order), so their runs end cleanly.
    const mcp = mcpRoutes({
      engine,
      timeTravel,
      store,
      config,
      logger,
      version: VERSION,
      callerOf,
      eventStore: core.mcpEvents,
      sharedSessions: core.cluster !== undefined,
      sealing: {
        key: stateKeySource(config.protocols.mcpStateSecret, core.cluster),
        ttlSeconds: Math.ceil((config.approvals.timeoutMs + 5 * 60_000) / 1000),
      },
      ...(listenBus ? { listenBus } : {}),
    });
    routes.push({ path: '/mcp', app: mcp });
    resources.push({ name: 'mcp-sessions', close: () => mcp.closeSessions() });
    if (listenBus) resources.push({ name: 'mcp-listen-bus', close: async () => listenBus.close() });
    // One map of ACP connections for HTTP and WebSocket, so one cap covers both.
    const acpClients = new Map<string, CappedClient>();
    const acpCaps = config.protocols.acpConnections;
    // The ACP `model` config option offers the models the roles are configured with.
    const acpModels = modelChoices(modelConfig.roles);
    // Replicas pass a request for an ACP connection to the replica holding it (where it listens, or PARLEY_REPLICA_URL).
    const replicaUrl = () => config.cluster.replicaUrl ?? reachableUrl;
    const acp = acpRoutes({
      ...(core.cluster?.shared
        ? { replicas: { directory: connectionDirectory(core.cluster, replicaUrl), replicaId: core.cluster.replicaId } }
        : {}),
      engine,
      logger,
      callerOf,
      clients: acpClients,
      caps: acpCaps,
      toolSettings: config.tools,
      threads: core.threads,
      sessionStore: core.acpSessions,
      models: acpModels,
    });
    routes.push({ path: '/', app: acp.app });
    resources.push({ name: 'acp-connections', close: () => acp.close() });
    const acpWs = acpWebSocket({
      engine,
      logger,
      toolSettings: config.tools,
      threads: core.threads,
      sessionStore: core.acpSessions,
      models: acpModels,
      authenticate: authenticateBearer(config.server.apiKeys, config.server.adminKeys, options.localToken),
      isLocal: (authorization) => bearerIsToken(authorization, options.localToken),
      maxMessageBytes: config.server.bodyLimitBytes,
      maxJsonDepth: config.server.jsonMaxDepth,
      clients: acpClients,
      caps: acpCaps,
    });
    resources.push({ name: 'acp-websockets', close: () => acpWs.close() });

    routes.push(...(options.routes ?? []));
    // Last: the page at `/` never shadows an API route.
    routes.push({ path: '/', app: consoleRoutes() });
    const origins = {
      bindHost: config.server.host,
      // Another replica passing an ACP request on addresses this one by its replica URL (an empty list
      // accepts any Host off loopback, and must stay empty).
      allowedHosts:
        config.cluster.replicaUrl && config.server.allowedHosts.length > 0
          ? [...config.server.allowedHosts, new URL(config.cluster.replicaUrl).hostname]
          : config.server.allowedHosts,
      allowedOrigins: config.server.allowedOrigins,
    };
    const upgradeVerdict = originPolicy(origins);
    const readiness: ReadinessCheck[] = resources
      .filter((r) => r.ready)
      .map((r) => ({ name: r.name, check: () => r.ready!() }));
    const app = createHttpApp({
      version: VERSION,
      apiKeys: config.server.apiKeys,
      adminKeys: config.server.adminKeys,
      bodyLimitBytes: config.server.bodyLimitBytes,
      logger,
      routes,
      readiness,
      origins,
      jsonMaxDepth: config.server.jsonMaxDepth,
      localToken: options.localToken,
      // Peers discover Parley by its agent card before they hold a key; the console page holds no data.
      publicPaths: ['/.well-known/agent-card.json', ...(a2aSigner ? [JWKS_PATH] : []), ...CONSOLE_PUBLIC_PATHS],
    });

    let server: Server | undefined;
    let connections = 0;
    let closing: Promise<void> | undefined;

    const listen = async () => {
      // A2A's gRPC binding first: a port it cannot have stops start-up before HTTP is served.
      if (a2a.grpc && a2a.grpc.port === undefined) await a2a.grpc.listen();
      return listenHttp();
    };
    const listenHttp = () =>
      new Promise<{ url: string; port: number }>((resolve, reject) => {
        if (server) throw new Error('already listening');
        const s = serve(
          { fetch: app.fetch, hostname: config.server.host, port: config.server.port },
          (info: AddressInfo) => {
            const host = info.address.includes(':') ? `[${info.address}]` : info.address;
            const url = `http://${host}:${info.port}`;
            logger.info(`Parley ${VERSION} listening on ${url}`);
            logger.info(
              consoleBuilt()
                ? `console: open ${url}/ in a browser (docs/console.md)`
                : 'console: not built, so / says how (npm run build)',
            );
            if (!WILDCARD_ADDRESSES.has(info.address)) reachableUrl = url;
            else if (core.cluster?.shared && !config.cluster.replicaUrl)
              logger.warn(
                'replicas: listening on a wildcard address without PARLEY_REPLICA_URL, so the other replicas cannot pass ACP HTTP requests here: set it, or route /acp with affinity (docs/deployment.md)',
              );
            if (!authEnabled(config.server.apiKeys, config.server.adminKeys)) {
              logger.warn(
                'auth is off: PARLEY_API_KEYS and PARLEY_ADMIN_KEYS are empty, so every endpoint is open to anyone who can reach it (everything belongs to one local caller)',
              );
            }
            warnIfExposed(config, logger);
            resolve({ url, port: info.port });
          },
        ) as Server;
        // A request Node's parser refuses (unknown method, malformed, headers too large): answered, not reset.
        s.on('clientError', answerClientError);
        s.on('connection', (socket: Duplex) => {
          connections += 1;
          socket.once('close', () => (connections -= 1));
        });
        // WebSocket upgrades bypass Hono: Host and Origin are checked here as Hono checks them
        // (browsers always send Origin on an upgrade), then /acp is served, anything else is refused.
        s.on('upgrade', (req, socket: Duplex, head: Buffer) => {
          const verdict = upgradeVerdict(req.headers.host, req.headers.origin);
          if (!verdict.ok) return refuseUpgrade(socket, 403, verdict.message);
          if (!acpWs.handleUpgrade(req, socket, head))
            refuseUpgrade(socket, 404, `No WebSocket endpoint at ${req.url ?? '/'}.`);
        });
        // CONNECT never reaches Hono either (without a listener Node drops the socket unanswered): the
        // same Host/Origin check and auth first, then the path's 405 or 404.
        s.on('connect', (req, socket: Duplex) => {
          const verdict = upgradeVerdict(req.headers.host, req.headers.origin);
          if (!verdict.ok) return refuseUpgrade(socket, 403, verdict.message);
          if (!bearerCaller(req.headers.authorization))
            return refuseUpgrade(socket, 401, 'Missing or invalid API key: send Authorization: Bearer <key>.');
          refuseConnect(app, JSON_RPC_PATHS, req.url, socket);
        });
        s.once('error', (err) =>
          reject(
            new Error(
              `Cannot listen on ${config.server.host}:${config.server.port} (PARLEY_HOST/PARLEY_PORT): ${err.message}`,
            ),
          ),
        );
        server = s;
      });

    const stopHttp = async () => {
      const s = server;
      if (!s || !s.listening) return;
      const drained = new Promise<void>((resolve) => s.close(() => resolve()));
      // Keep-alive connections go idle once their request is answered; close them as they do.
      const sweep = setInterval(() => s.closeIdleConnections(), 50);
      void drained.finally(() => clearInterval(sweep));
      const bound = new Promise<'timeout'>((resolve) =>
        setTimeout(() => resolve('timeout'), config.server.shutdownTimeoutMs).unref(),
      );
      if ((await Promise.race([drained, bound])) === 'timeout') {
        logger.warn('shutdown: requests still open after the grace period; closing their connections', {
          graceMs: config.server.shutdownTimeoutMs,
        });
        s.closeAllConnections();
        await drained;
      }
    };

    let ingesting: Promise<void> | undefined;
    const ingestAfterListen = () => (ingesting ??= core.ingestAfterListen());
    const close = () =>
      (closing ??= (async () => {
        // A start-up ingestion still running writes the knowledge store: it ends first (bounded).
        if (ingesting)
          await Promise.race([
            ingesting,
            new Promise((resolve) => setTimeout(resolve, config.server.shutdownTimeoutMs).unref()),
          ]);
        await engine.suspendRunsAwaitingApproval();
        // WebSockets are not requests the HTTP server drains: closed first, or the server's close waits on them.
        await acpWs.close();
        await stopHttp();
        await closeAll(resources, logger);
      })());

    return {
      config,
      app,
      model,
      scripted,
      logger,
      engine,
      approvals,
      store,
      threads: core.threads,
      acpSessions: core.acpSessions,
      runStore: core.runStore,
      reingest: () => core.reingest(),
      ingestAfterListen,
      knowledgeReady: () => core.knowledgeReady(),
      listen,
      openConnections: () => connections,
      close,
    };
  } catch (err) {
    await closeAll(resources, logger);
    throw err;
  }
}

/** Bound where other machines reach it, with no keys: anyone on the network can run and approve. Say so loudly. */
function warnIfExposed(config: Config, logger: Logger): void {
  if (isLoopback(config.server.host)) return;
  if (!authEnabled(config.server.apiKeys, config.server.adminKeys)) {
    logger.warn(
      `!!! Parley is bound to ${config.server.host}, reachable from other machines, and auth is OFF: anyone who can reach this port can start runs, ` +
        'read every run and approve tool calls. Set PARLEY_API_KEYS, or bind PARLEY_HOST=127.0.0.1. See docs/security.md. !!!',
    );
  }
  if (config.server.allowedHosts.length === 0) {
    logger.info(
      `Bound to ${config.server.host}: any Host header is accepted; set PARLEY_ALLOWED_HOSTS to the names clients use to turn the Host check on.`,
    );
  }
}

async function closeAll(resources: Resource[], logger: Logger): Promise<void> {
  for (const r of [...resources].reverse()) {
    try {
      await r.close();
    } catch (err) {
      logger.warn(`shutdown: closing ${r.name} failed`, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/** `parley serve`: create, listen, and shut down gracefully on SIGINT/SIGTERM (a second signal exits at once). */
export async function serveParley(
  config: Config,
  options: ParleyOptions = {},
): Promise<Parley & { address: { url: string; port: number } }> {
  // Listen first, ingest after: a first request that needs what the ingestion brings waits for it.
  const parley = await createParley(config, { ingestAtStart: 'after-listen', ...options });
  let address: { url: string; port: number };
  try {
    address = await parley.listen();
  } catch (err) {
    await parley.close(); // the scripted model and other resources would keep the process alive
    throw err;
  }
  // The start's burst of allocation is over: V8's young generation may grow again (young-generation.ts).
  void parley.ingestAfterListen().finally(releaseYoungGeneration);
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    parley.logger.info(`${signal}: shutting down (up to ${config.server.shutdownTimeoutMs} ms for in-flight work)`);
    parley.close().then(
      () => process.exit(0),
      (err: unknown) => {
        parley.logger.error('shutdown failed', { error: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return Object.assign(parley, { address });
}
