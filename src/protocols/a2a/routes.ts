/**
 * A2A server (v1.0 on JSON-RPC, HTTP+JSON and gRPC; v0.3 on JSON-RPC):
 *   GET  /.well-known/agent-card.json   the agent card (v1.0; v0.3 shape when A2A-Version is 0.3 or absent),
 *                                       cacheable, signed with a key (card-route.ts)
 *   GET  /.well-known/jwks.json         the card's signing key, when there is one
 *   POST /a2a (and /a2a/)               JSON-RPC; SendStreamingMessage and SubscribeToTask answer with SSE
 *   /a2a/rest/…                         the HTTP+JSON (REST) binding (rest.ts), over the same handler
 *   gRPC on its own port                grpc.ts, over the same handler (a2aEndpoint(...).grpc)
 * A task is a run (see bridge.ts); docs/protocols/a2a.md documents methods and the resume shape.
 */
import { Hono, type Context } from 'hono';
import { etag, RETAINED_304_HEADERS } from 'hono/etag';
import type { AgentCard } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  STATE_HEADERS_KEY,
  UnauthenticatedUser,
  type PushNotificationSender,
  type ServerCallContext,
  type User,
} from '@a2a-js/sdk/server';
import type { Config } from '../../config.ts';
import { authEnabled } from '../../http/auth.ts';
import type { KnowledgeReads, RunEngine } from '../../graph/contract.ts';
import type { Logger } from '../../log.ts';
import { A2ARunBridge } from './bridge.ts';
import { buildAgentCard, EXTENDED_SKILLS, interfacesAt, refreshSkills } from './card.ts';
import { cardRoute } from './card-route.ts';
import { JWKS_PATH, type CardSigner } from './card-signer.ts';
import type { A2AGrpcServer } from './grpc.ts';
import { ParleyRequestHandler } from './handler.ts';
import { jsonRpcRoute } from './jsonrpc.ts';
import { REST_PATH, restRoute } from './rest.ts';
import { ParleyTaskStore } from './task-store.ts';
import type { A2ATaskStore } from '../../store/a2a-tasks/types.ts';
import { createMemoryA2aTaskStore } from '../../store/a2a-tasks/memory.ts';
import type { A2APushStore } from '../../store/a2a-push/types.ts';
import { createMemoryA2aPushStore } from '../../store/a2a-push/memory.ts';
import { PushOutbox } from './push-outbox.ts';
import type { Cluster } from '../../cluster/types.ts';
import { ParleyPushStore } from './push-store.ts';

export { CARD_MAX_AGE_SECONDS } from './card-route.ts';

export interface A2ADeps {
  engine: RunEngine;
  store: KnowledgeReads;
  config: Config;
  logger: Logger;
  /**
   * Base URL clients use to reach this server, for the agent card (e.g. https://parley.example.com
   * behind a proxy). A function is asked on every card request; absent, the card request's own origin is used.
   */
  publicUrl?: string | (() => string);
  /** Parley's version for the card (default 0.1.0). */
  version?: string;
  /** The authenticated caller id the auth middleware established, if any; tasks are scoped per caller. */
  callerOf?: (c: Context) => string | undefined;
  /**
   * Where tasks are kept (src/core.ts gives the run store's, so tasks survive a restart). Absent: in
   * process memory, bounded by PARLEY_A2A_TASK_RETENTION_MAX.
   */
  tasks?: A2ATaskStore;
  /** Where push-notification configs and the outbox are kept (src/core.ts gives the run store's); absent: memory. */
  push?: A2APushStore;
  /** Replicas (docs/deployment.md): the push outbox sends each delivery from one replica. */
  cluster?: Cluster;
  /** Lifecycle resources of the server: the push outbox is added so it stops before the store closes. */
  resources?: { name: string; close: () => void | Promise<void> }[];
  /**
   * The gRPC binding (PARLEY_A2A_GRPC_PORT): where to bind, and the caller of an `authorization`
   * metadata value as the HTTP auth finds it (undefined: refused). Absent: no gRPC.
   */
  grpc?: { host: string; port: number; authenticate: (authorization: string | undefined) => string | undefined };
  /** Signs the card (PARLEY_A2A_CARD_SIGNING_KEY, card-signer.ts); absent: unsigned. */
  signer?: CardSigner;
}

export interface A2AEndpoint {
  app: Hono;
  /** The gRPC server when deps.grpc was given; the composition root starts it with the HTTP server. */
  grpc?: A2AGrpcBinding;
}

/**
 * The gRPC server, built when it starts listening: grpc-js, protobufjs and the SDK's gRPC service (~1 MB
 * of code) load only when PARLEY_A2A_GRPC_PORT asks for gRPC (start-up: docs/performance.md).
 */
export interface A2AGrpcBinding {
  /** The port it listens on (after `listen`). */
  readonly port: number | undefined;
  listen(): Promise<number>;
  close(): Promise<void>;
}

/** The SDK sends pushes only while a request consumes the task's events; Parley's outbox sends them all (bridge.ts). */
const NO_SDK_SENDER: PushNotificationSender = { send: async () => undefined };

/** An A2A SDK user for a caller the auth middleware identified; the SDK scopes tasks by userName. */
class KeyUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated() {
    return true;
  }
}

/** The HTTP routes only (tests, and servers without gRPC). */
export function a2aRoutes(deps: A2ADeps): Hono {
  return a2aEndpoint(deps).app;
}

export function a2aEndpoint(deps: A2ADeps): A2AEndpoint {
  const card = buildAgentCard({
    version: deps.version ?? '0.1.0',
    bearerAuth: authEnabled(deps.config.server.apiKeys, deps.config.server.adminKeys),
    grpc: deps.grpc !== undefined,
  });
  // Finished tasks beyond the cap are dropped, oldest first (the SDK's InMemoryTaskStore kept every task forever).
  const taskStore = new ParleyTaskStore(
    deps.tasks ?? createMemoryA2aTaskStore({ maxFinished: deps.config.protocols.a2aTaskRetentionMax }),
  );
  const pushSettings = deps.config.protocols.a2aPush;
  const pushPort = deps.push ?? createMemoryA2aPushStore();
  const scopeOf = (context: ServerCallContext) => taskStore.scopeOf(context);
  const pushStore = new ParleyPushStore(pushPort, { ...pushSettings, scopeOf });
  const outbox = new PushOutbox(
    pushPort,
    { ...pushSettings, scopeOf, ...(deps.cluster ? { cluster: deps.cluster } : {}) },
    deps.logger,
  );
  deps.resources?.push({ name: 'a2a-push-outbox', close: () => outbox.close() });
  const bridge = new A2ARunBridge({
    engine: deps.engine,
    taskStore,
    logger: deps.logger,
    push: outbox,
  });
  // What the last process left: its unfinished tasks follow their (recovered) runs again. Requests wait
  // for it, so a resume message or a resubscribe finds the task's bus in place.
  const recovered = bridge.recover().then(
    (r) => {
      if (r.followed || r.failed) deps.logger.info('a2a: tasks the last process left', r);
    },
    (err: unknown) => deps.logger.error('a2a: recovering tasks failed', { error: (err as Error).message }),
  );
  outbox.start();
  let grpc: A2AGrpcBinding | undefined;
  /** The card as seen from `base`: interfaces there (gRPC at its bound port), the registry's skills now. */
  const cardView = async (base: string): Promise<AgentCard> => {
    await refreshSkills(card, deps.store);
    // A per-request view: the shared card (the SDK handler's) keeps no request's URL.
    return { ...card, supportedInterfaces: interfacesAt(base, grpc ? (grpc.port ?? 0) : undefined) };
  };
  const publicBase = () => (typeof deps.publicUrl === 'function' ? deps.publicUrl() : deps.publicUrl);
  let lastBase = '';
  /**
   * GetExtendedAgentCard (only declared with API keys, so every caller reaching it has one): the public
   * card plus EXTENDED_SKILLS, signed like it. Its URLs are those of the request's Host (HTTP), else
   * those the public card was last served with (a gRPC call has no HTTP origin).
   */
  const extendedCard = async (context: ServerCallContext): Promise<AgentCard> => {
    const headers = context.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
    const host = headers?.host;
    const base = publicBase() ?? (typeof host === 'string' ? `http://${host}` : lastBase);
    const view = await cardView(base);
    const extended = { ...view, skills: [...view.skills, ...EXTENDED_SKILLS] };
    return deps.signer && base ? deps.signer.sign(extended, base) : extended;
  };
  const sdkHandler = new DefaultRequestHandler(card, taskStore, bridge, bridge, pushStore, NO_SDK_SENDER, extendedCard);
  const handler = new ParleyRequestHandler(sdkHandler, taskStore, bridge);
  const userOf = (c: Context): User => {
    const id = deps.callerOf?.(c);
    return id ? new KeyUser(id) : new UnauthenticatedUser();
  };
  if (deps.grpc) {
    const options = { ...deps.grpc, maxMessageBytes: deps.config.server.bodyLimitBytes };
    let server: A2AGrpcServer | undefined;
    grpc = {
      get port() {
        return server?.port;
      },
      async listen() {
        const { A2AGrpcServer } = await import('./grpc.ts');
        server ??= new A2AGrpcServer(options, handler, deps.logger, recovered);
        return server.listen();
      },
      close: async () => server?.close(),
    };
    const binding = grpc;
    deps.resources?.push({ name: 'a2a-grpc', close: () => binding.close() });
  }

  const app = new Hono();
  const afterRecovery = async (_c: Context, next: () => Promise<void>) => {
    await recovered;
    await next();
  };
  app.use('/a2a', afterRecovery);
  app.use('/a2a/*', afterRecovery);
  const serveCard = cardRoute({
    view: (base) => {
      lastBase = base;
      return cardView(base);
    },
    ...(deps.publicUrl !== undefined ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.signer ? { signer: deps.signer } : {}),
    logger: deps.logger,
  });
  app.get(
    '/.well-known/agent-card.json',
    etag({ retainedHeaders: [...RETAINED_304_HEADERS, 'last-modified'] }),
    serveCard,
  );
  if (deps.signer) {
    const jwks = deps.signer.jwks;
    app.get(JWKS_PATH, (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      return c.json(jwks);
    });
  }
  const rpc = jsonRpcRoute({
    handler,
    card,
    userOf,
    logger: deps.logger,
    heartbeatMs: deps.config.protocols.sseHeartbeatMs,
  });
  // httpx-based clients (the Python SDK) post to the card's URL with a trailing slash.
  app.post('/a2a', rpc);
  app.post('/a2a/', rpc);
  app.on(
    ['GET', 'POST', 'DELETE'],
    `${REST_PATH}/*`,
    restRoute({
      handler,
      card,
      userOf,
      logger: deps.logger,
      heartbeatMs: deps.config.protocols.sseHeartbeatMs,
      jsonMaxDepth: deps.config.server.jsonMaxDepth,
    }),
  );
  return { app, ...(grpc ? { grpc } : {}) };
}
