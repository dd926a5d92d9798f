/**
 * The A2A HTTP+JSON (REST) binding on Hono, beside JSON-RPC, over the same request handler: the same
 * tasks, auth and caller scoping. Routes (relative to the interface URL `<base>/a2a/rest`, each also
 * under a `/{tenant}` prefix, as the SDK's client and its Express glue have them):
 *   POST /message:send   POST /message:stream (SSE)   GET /tasks   GET /tasks/{id}
 *   POST /tasks/{id}:cancel   GET|POST /tasks/{id}:subscribe (SSE)   GET /extendedAgentCard
 *   POST|GET /tasks/{id}/pushNotificationConfigs   GET|DELETE /tasks/{id}/pushNotificationConfigs/{configId}
 *
 * The SDK (1.3.0) ships this binding only as Express glue (`restHandler`); the framework-neutral
 * RestTransportHandler it wraps is not exported. So this is the same flow written on web-standard
 * Request/Response with the SDK's own parts: its ProtoJSON codecs for bodies and replies, its REST
 * error mapping (toRestErrorBody / restStatusFor: `{ error: { code, status, message, details } }`), its
 * SSE formatter, its version check. What remains ours is the path table and the query parsing of
 * ListTasks and GetTask, which mirror the SDK's. Bodies are checked here (not by the app's JSON body
 * middleware, see src/http/app.ts) so a bad one gets this binding's error shape.
 */
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import {
  A2A_CONTENT_TYPE,
  A2A_VERSION_HEADER,
  AgentCard,
  Extensions,
  HTTP_EXTENSION_HEADER,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SSE_HEADERS,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  formatSSEErrorEvent,
  formatSSEEvent,
  taskStateFromJSON,
  type ListTasksRequest,
  type Message,
} from '@a2a-js/sdk';
import {
  A2AError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  RestContentTypeNotSupportedError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import {
  defaultServerCallContextBuilder,
  validateVersion,
  type A2ARequestHandler,
  type ServerCallContext,
  type User,
} from '@a2a-js/sdk/server';
import { parseJsonBytes } from '../../http/json-text.ts';
import type { Logger } from '../../log.ts';
import { startHeartbeat } from '../shared/heartbeat.ts';
import { paramsProblem } from './params.ts';

/** Where the binding is served; the card announces `<base>/a2a/rest`. */
export const REST_PATH = '/a2a/rest';

export interface RestRouteOptions {
  handler: A2ARequestHandler;
  card: AgentCard;
  userOf: (c: Context) => User;
  logger: Logger;
  /** SSE comment line interval (PARLEY_SSE_HEARTBEAT_MS). */
  heartbeatMs: number;
  /** Deepest JSON nesting accepted in a body (PARLEY_JSON_MAX_DEPTH). */
  jsonMaxDepth: number;
}

interface Call {
  c: Context;
  context: ServerCallContext;
  tenant: string;
  /** The path's captures, decoded (task id, config id). */
  ids: string[];
  query: Record<string, string>;
  body: Record<string, unknown>;
}

interface Route {
  methods: string[];
  pattern: RegExp;
  /** Whether the request carries a JSON body to read. */
  body?: boolean;
  run(call: Call, options: RestRouteOptions): Promise<Response>;
}

const ID = '([^/:]+)';
const reply = (status: number, value: unknown) =>
  new Response(JSON.stringify(value), { status, headers: { 'Content-Type': A2A_CONTENT_TYPE } });

function sendParams(call: Call): SendMessageRequest {
  const problem = paramsProblem('1.0', 'SendMessage', call.body);
  if (problem) throw new RequestMalformedError(problem);
  const params = SendMessageRequest.fromJSON({ ...call.body, tenant: call.tenant });
  if (!params.message) throw new RequestMalformedError('message is required');
  if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return params;
}

function integer(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number.parseInt(value, 10);
  if (Number.isNaN(n) || String(n) !== value.trim()) throw new RequestMalformedError(`${name} must be a valid integer`);
  if (n < min || n > max)
    throw new RequestMalformedError(
      max === Number.MAX_SAFE_INTEGER ? `${name} must be at least ${min}` : `${name} must be between ${min} and ${max}`,
    );
  return n;
}

/** ListTasks from the query string, as the SDK's REST transport reads it. */
function listParams(call: Call): ListTasksRequest {
  const q = call.query;
  const status = q.status ? taskStateFromJSON(Number.isNaN(Number(q.status)) ? q.status : Number(q.status)) : 0;
  return {
    tenant: call.tenant,
    contextId: q.contextId ?? '',
    status,
    pageSize: q.pageSize ? integer('pageSize', q.pageSize, 1, 100) : undefined,
    pageToken: q.pageToken ?? '',
    historyLength: q.historyLength ? integer('historyLength', q.historyLength, 0) : undefined,
    statusTimestampAfter: q.statusTimestampAfter || undefined,
    includeArtifacts: q.includeArtifacts === 'true',
  };
}

const ROUTES: Route[] = [
  {
    methods: ['POST'],
    pattern: /^\/message:send$/,
    body: true,
    async run(call, { handler }) {
      const result = await handler.sendMessage(sendParams(call), call.context);
      const payload =
        'messageId' in result
          ? { $case: 'message' as const, value: result as Message }
          : { $case: 'task' as const, value: result };
      return reply(200, SendMessageResponse.toJSON({ payload }));
    },
  },
  {
    methods: ['POST'],
    pattern: /^\/message:stream$/,
    body: true,
    run: (call, options) => sse(call, options, options.handler.sendMessageStream(sendParams(call), call.context)),
  },
  {
    methods: ['GET'],
    pattern: /^\/tasks$/,
    async run(call, { handler }) {
      const params = listParams(call);
      const json = ListTasksResponse.toJSON(await handler.listTasks(params, call.context)) as { tasks?: unknown[] };
      // As the SDK's serializer: with includeArtifacts every task says `artifacts`, even when empty.
      const tasks = (json.tasks ?? []).map((t) =>
        params.includeArtifacts && (t as { artifacts?: unknown }).artifacts === undefined
          ? { ...(t as object), artifacts: [] }
          : t,
      );
      return reply(200, { nextPageToken: '', pageSize: 0, totalSize: 0, ...json, tasks });
    },
  },
  {
    methods: ['GET'],
    pattern: new RegExp(`^/tasks/${ID}$`),
    async run(call, { handler }) {
      const historyLength = call.query.historyLength;
      const task = await handler.getTask(
        {
          id: call.ids[0]!,
          tenant: call.tenant,
          ...(historyLength !== undefined ? { historyLength: integer('historyLength', historyLength, 0) } : {}),
        },
        call.context,
      );
      return reply(200, Task.toJSON(task));
    },
  },
  {
    methods: ['POST'],
    pattern: new RegExp(`^/tasks/${ID}:cancel$`),
    async run(call, { handler }) {
      const task = await handler.cancelTask({ id: call.ids[0]!, tenant: call.tenant, metadata: {} }, call.context);
      return reply(200, Task.toJSON(task));
    },
  },
  {
    methods: ['GET', 'POST'],
    pattern: new RegExp(`^/tasks/${ID}:subscribe$`),
    run: (call, options) =>
      sse(call, options, options.handler.resubscribe({ id: call.ids[0]!, tenant: call.tenant }, call.context)),
  },
  {
    methods: ['GET'],
    pattern: /^\/extendedAgentCard$/,
    async run(call, { handler }) {
      const card = await handler.getAuthenticatedExtendedAgentCard({ tenant: call.tenant }, call.context);
      return reply(200, AgentCard.toJSON(card));
    },
  },
  {
    methods: ['POST'],
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    body: true,
    async run(call, { handler, card }) {
      if (!card.capabilities?.pushNotifications) throw new PushNotificationNotSupportedError();
      const params = TaskPushNotificationConfig.fromJSON({ ...call.body, taskId: call.ids[0], tenant: call.tenant });
      const created = await handler.createTaskPushNotificationConfig(params, call.context);
      return reply(201, TaskPushNotificationConfig.toJSON(created));
    },
  },
  {
    methods: ['GET'],
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    async run(call, { handler }) {
      const listed = await handler.listTaskPushNotificationConfigs(
        { taskId: call.ids[0]!, pageSize: 0, pageToken: '', tenant: call.tenant },
        call.context,
      );
      return reply(200, ListTaskPushNotificationConfigsResponse.toJSON(listed));
    },
  },
  {
    methods: ['GET'],
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    async run(call, { handler }) {
      const config = await handler.getTaskPushNotificationConfig(
        { taskId: call.ids[0]!, id: call.ids[1]!, tenant: call.tenant },
        call.context,
      );
      return reply(200, TaskPushNotificationConfig.toJSON(config));
    },
  },
  {
    methods: ['DELETE'],
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    async run(call, { handler }) {
      await handler.deleteTaskPushNotificationConfig(
        { taskId: call.ids[0]!, id: call.ids[1]!, tenant: call.tenant },
        call.context,
      );
      return new Response(null, { status: 204 });
    },
  },
];

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new RequestMalformedError(`the path segment "${segment.slice(0, 80)}" is not valid percent-encoding`);
  }
}

/** The route for a path below REST_PATH: without a tenant first (as the SDK's Express glue orders them), then under one. */
function match(method: string, path: string): { route: Route; ids: string[]; tenant?: string } | undefined {
  const find = (p: string) => {
    for (const route of ROUTES) {
      const m = route.pattern.exec(p);
      if (m && route.methods.includes(method)) return { route, ids: m.slice(1).map(decode) };
    }
    return undefined;
  };
  const plain = find(path);
  if (plain) return plain;
  const tenant = /^\/([^/]+)(\/.*)$/.exec(path);
  const found = tenant && find(tenant[2]!);
  return found ? { ...found, tenant: decode(tenant[1]!) } : undefined;
}

/** The JSON body, checked by the rules every Parley JSON body follows (src/http/json-text.ts). */
async function readBody(c: Context, maxDepth: number): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type');
  const media = type?.split(';', 1)[0]!.trim().toLowerCase();
  // 415 (the SDK's Express glue says 400): every Parley route refuses a body type a web page can send
  // without a preflight with 415, and the reason in the details is the SDK's all the same.
  if (type && media !== 'application/json' && media !== A2A_CONTENT_TYPE)
    throw new RestContentTypeNotSupportedError({
      message: `Unsupported Content-Type "${type}"; expected application/json or ${A2A_CONTENT_TYPE}.`,
      statusCode: 415,
    });
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length === 0) return {};
  const parsed = parseJsonBytes(bytes, maxDepth);
  if (!parsed.ok) throw new RequestMalformedError(`Invalid JSON payload: ${parsed.message}`);
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RequestMalformedError('The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** An SSE reply of StreamResponses; an error before the first event is a plain REST error. */
async function sse(call: Call, options: RestRouteOptions, source: AsyncIterable<StreamResponse>): Promise<Response> {
  const events = source[Symbol.asyncIterator]();
  const first = await events.next();
  const c = call.c;
  for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
  return stream(c, async (out) => {
    // A client that goes away detaches its queue from the task's bus; the run goes on.
    out.onAbort(() => void events.return?.(undefined));
    const heartbeat = startHeartbeat((text) => out.write(text), options.heartbeatMs, 'keep-alive');
    try {
      if (!first.done) await out.write(formatSSEEvent(StreamResponse.toJSON(first.value)));
      for (let next = await events.next(); !next.done && !out.aborted; next = await events.next()) {
        heartbeat.wrote();
        await out.write(formatSSEEvent(StreamResponse.toJSON(next.value)));
      }
    } catch (err) {
      options.logger.warn('a2a rest: stream failed', { error: (err as Error).message });
      if (!out.aborted) await out.write(formatSSEErrorEvent(errorBody(err, options.logger).body));
    } finally {
      heartbeat.stop();
      await events.return?.(undefined);
    }
  });
}

/** The binding's error body; anything that is not an A2A error is an internal error, its details logged only. */
function errorBody(err: unknown, logger: Logger): { status: number; body: ReturnType<typeof toRestErrorBody> } {
  if (!(err instanceof A2AError)) {
    logger.error('a2a rest: request failed', { error: (err as Error)?.message });
    return { status: 500, body: toRestErrorBody(new A2AError('Internal error'), 500) };
  }
  // ContentTypeNotSupportedError is 415 here, whether the body's type or a part's media type is refused: the
  // A2A 1.0.0 table (§5.4) and the TCK (1.0-dev) say 415; the SDK's mapping follows 1.0.1's 400.
  const status = err.name === 'ContentTypeNotSupportedError' ? 415 : restStatusFor(err);
  return { status, body: toRestErrorBody(err, status) };
}

export function restRoute(options: RestRouteOptions): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      const pathname = new URL(c.req.url).pathname;
      const below = pathname.slice(pathname.indexOf(REST_PATH) + REST_PATH.length);
      const found = match(c.req.method, below);
      if (!found)
        return reply(
          404,
          toRestErrorBody(new Error(`No A2A HTTP+JSON route for ${c.req.method} ${below || '/'}.`), 404),
        );
      const body = found.route.body ? await readBody(c, options.jsonMaxDepth) : {};
      const query = c.req.query();
      const tenant = found.tenant ?? (typeof body.tenant === 'string' ? body.tenant : undefined) ?? query.tenant ?? '';
      const requested = c.req.header(A2A_VERSION_HEADER);
      const context = defaultServerCallContextBuilder({
        extensions: Extensions.parseServiceParameter(c.req.header(HTTP_EXTENSION_HEADER)),
        user: options.userOf(c),
        headers: Object.fromEntries(c.req.raw.headers),
        requestedVersion: requested || undefined,
        tenant: tenant || undefined,
      });
      validateVersion(context.requestedVersion, options.card, 'HTTP+JSON');
      const response = await found.route.run({ c, context, tenant, ids: found.ids, query, body }, options);
      if (context.activatedExtensions)
        response.headers.set(HTTP_EXTENSION_HEADER, Extensions.toServiceParameter(context.activatedExtensions));
      return response;
    } catch (err) {
      const { status, body } = errorBody(err, options.logger);
      return reply(status, body);
    }
  };
}
