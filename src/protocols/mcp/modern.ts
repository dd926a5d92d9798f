/**
 * MCP 2026-07-28 over Streamable HTTP: the SDK's stateless entry (`createMcpHandler`), one fresh
 * McpServer per request from the same factory the 2025 sessions use, so both revisions serve the same
 * tools, resources and prompts. No session: any replica answers any request (approval rounds carry
 * their run in `requestState`, rounds.ts). The SDK owns the wire: the `_meta` envelope and header
 * checks with the spec's error codes, `server/discover`, `resultType`, cache fields, `subscriptions/listen`.
 *
 * 2025-era requests never reach it (http.ts routes them to the sessions with `isLegacyRequest`), hence
 * `legacy: 'reject'`. The caller rides in `authInfo.extra` from the auth middleware to the factory.
 */
import { createMcpHandler, type AuthInfo, type ServerEventBus } from '@modelcontextprotocol/server';
import { type Caller, LOCAL_CALLER } from '../../graph/contract.ts';
import { createParleyMcpServer, type McpServerDeps } from './server.ts';

export interface ModernDeps extends McpServerDeps {
  maxRequestBodySize: number;
  /** Where `subscriptions/listen` streams hear of changes (replicas: over the cluster, listen-bus.ts). */
  bus?: ServerEventBus;
  /** Open `subscriptions/listen` streams at most (each is one open response). */
  maxSubscriptions?: number;
}

/** The authInfo a request's handler receives: the caller the auth middleware established. */
export function authInfoOf(caller: Caller): AuthInfo {
  return { token: '', clientId: caller.id, scopes: [], extra: { caller } };
}

const callerOf = (authInfo: AuthInfo | undefined): Caller =>
  (authInfo?.extra?.caller as Caller | undefined) ?? LOCAL_CALLER;

export function modernMcpHandler(deps: ModernDeps) {
  const handler = createMcpHandler(
    ({ authInfo, era }) =>
      createParleyMcpServer({
        ...deps,
        caller: callerOf(authInfo),
        era,
        notify: {
          resourcesChanged: () => handler.notify.resourcesChanged(),
          resourceUpdated: (uri) => handler.notify.resourceUpdated(uri),
        },
      }),
    {
      legacy: 'reject',
      maxRequestBodySize: deps.maxRequestBodySize,
      ...(deps.bus ? { bus: deps.bus } : {}),
      ...(deps.maxSubscriptions ? { maxSubscriptions: deps.maxSubscriptions } : {}),
      onerror: (err) => deps.logger.debug('mcp: a 2026-07-28 request was refused or failed', { error: err.message }),
    },
  );
  return handler;
}
