/**
 * A2A server (v1.0 JSON-RPC with v0.3 compatibility) on Hono:
 *   GET  /.well-known/agent-card.json   the agent card (v1.0; v0.3 shape when A2A-Version is 0.3 or absent),
 *                                       with a strong ETag, a short max-age, and 304 on If-None-Match
 *   POST /a2a (and /a2a/)               JSON-RPC; SendStreamingMessage and SubscribeToTask answer with SSE
 *   /a2a/rest/…                         the HTTP+JSON (REST) binding (rest.ts), over the same handler
 * A task is a run (see bridge.ts); docs/protocols/a2a.md documents methods and the resume shape.
 */
import { Hono, type Context } from 'hono';
import { etag } from 'hono/etag';
import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  UnauthenticatedUser,
  type PushNotificationSender,
  type ServerCallContext,
  type User,
} from '@a2a-js/sdk/server';
import type { Config } from '../../config.ts';
import { authEnabled } from '../../http/auth.ts';
import type { KnowledgeReads, RunEngine } from '../../graph/contract.ts';
import type { ApprovalPort } from '../../hitl/types.ts';
import type { Logger } from '../../log.ts';
import { A2ARunBridge } from './bridge.ts';
import { buildAgentCard, interfacesAt, legacyCard, refreshSkills } from './card.ts';
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

/**
 * How long a client may reuse the card without asking again. Short: the skills follow the registry.
 * After that a conditional GET costs a 304 when nothing changed.
 */
export const CARD_MAX_AGE_SECONDS = 300;

export interface A2ADeps {
  engine: RunEngine;
  approvals: ApprovalPort;
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

export function a2aRoutes(deps: A2ADeps): Hono {
  const card = buildAgentCard({
    version: deps.version ?? '0.1.0',
    bearerAuth: authEnabled(deps.config.server.apiKeys, deps.config.server.adminKeys),
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
    approvals: deps.approvals,
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
  const sdkHandler = new DefaultRequestHandler(card, taskStore, bridge, bridge, pushStore, NO_SDK_SENDER);
  const handler = new ParleyRequestHandler(sdkHandler, taskStore, bridge);
  const userOf = (c: Context): User => {
    const id = deps.callerOf?.(c);
    return id ? new KeyUser(id) : new UnauthenticatedUser();
  };

  const app = new Hono();
  const afterRecovery = async (_c: Context, next: () => Promise<void>) => {
    await recovered;
    await next();
  };
  app.use('/a2a', afterRecovery);
  app.use('/a2a/*', afterRecovery);
  // The ETag is a digest of the card as sent (shape, URL, skills), so it changes exactly when the card does.
  app.get('/.well-known/agent-card.json', etag(), async (c) => {
    try {
      await refreshSkills(card, deps.store);
      const base =
        typeof deps.publicUrl === 'function' ? deps.publicUrl() : (deps.publicUrl ?? new URL(c.req.url).origin);
      // A per-request view: the shared card (the SDK handler's) keeps no request's URL.
      const view: AgentCard = { ...card, supportedInterfaces: interfacesAt(base) };
      const requested = c.req.header(A2A_VERSION_HEADER) || '0.3';
      c.header('Vary', A2A_VERSION_HEADER);
      c.header('Cache-Control', `public, max-age=${CARD_MAX_AGE_SECONDS}`);
      return c.json(requested === '0.3' ? await legacyCard(view) : AgentCard.toJSON(view));
    } catch (err) {
      deps.logger.error('a2a: agent card failed', { error: (err as Error).message });
      return c.json({ error: 'Failed to retrieve agent card' }, 500);
    }
  });
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
  app.all(
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
  return app;
}
