/**
 * The A2A gRPC binding (v1.0, service `lf.a2a.v1.A2AService`) on its own port, from the SDK's gRPC
 * service (`@a2a-js/sdk/server/grpc`) over the same request handler as JSON-RPC and HTTP+JSON: the same
 * tasks, push notifications, callers and approvals. Parley adds what the SDK leaves to the server:
 *   - auth: `authorization: Bearer <key>` metadata, checked like the HTTP header (an interceptor answers
 *     UNAUTHENTICATED before the call reaches the handler), and the key's caller scopes the tasks;
 *   - the params check: SendMessage's request, as ProtoJSON, against the schemas JSON-RPC uses (params.ts);
 *   - bounds: the body limit as the largest message, a cap on concurrent streams per connection;
 *   - no internals to the client: an unexpected failure is INTERNAL "Internal error", the rest is logged.
 */
import * as grpc from '@grpc/grpc-js';
import { SendMessageRequest } from '@a2a-js/sdk';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { GRPC_STATUS_CODE } from '@a2a-js/sdk/errors/grpc';
import { UnauthenticatedUser, type A2ARequestHandler, type User } from '@a2a-js/sdk/server';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { Logger } from '../../log.ts';
import { paramsProblem } from './params.ts';

/** Concurrent calls one client connection may hold open (HTTP/2 streams): streams are long-lived. */
const MAX_CONCURRENT_STREAMS = 100;

export interface GrpcOptions {
  host: string;
  /** 0 picks a free port (tests); the bound one is `port()` once listening. */
  port: number;
  /** The caller of an `authorization` value: undefined refuses the call; ANONYMOUS's id when auth is off. */
  authenticate: (authorization: string | undefined) => string | undefined;
  /** Largest request message, in bytes (PARLEY_BODY_LIMIT_BYTES). */
  maxMessageBytes: number;
}

/** An unexpected failure, as the SDK's gRPC service sends an A2A error: INTERNAL, no details. */
class GrpcInternalError extends A2AError {
  readonly transport = 'grpc';
  readonly status = GRPC_STATUS_CODE.INTERNAL;
  constructor() {
    super({ message: 'Internal error' });
  }
}

/** An API-key user for the SDK, as over HTTP (routes.ts): the SDK scopes tasks by userName. */
class KeyUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated() {
    return true;
  }
}

const authorizationOf = (metadata: grpc.Metadata) => {
  const value = metadata.get('authorization')[0];
  return value === undefined ? undefined : String(value);
};

/** Refuses a call without a valid key before it reaches the service, as the HTTP app's auth does. */
function authInterceptor(authenticate: GrpcOptions['authenticate']): grpc.ServerInterceptor {
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, forward) => {
            const authorization = authorizationOf(metadata);
            if (authenticate(authorization) !== undefined) return forward(metadata);
            call.sendStatus({
              code: grpc.status.UNAUTHENTICATED,
              details: authorization
                ? 'Invalid API key.'
                : 'Missing API key: send the metadata authorization: Bearer <key>.',
            });
          },
        }),
    });
}

type Context = Parameters<A2ARequestHandler['getTask']>[1];

/**
 * The handler with Parley's edge checks and error hygiene for this binding; every call first waits for
 * `ready` (what the last process left is followed again: routes.ts), as the HTTP bindings do.
 */
function grpcHandler(inner: A2ARequestHandler, logger: Logger, ready: Promise<void>): A2ARequestHandler {
  const checkSend = (params: SendMessageRequest) => {
    const problem = paramsProblem('1.0', 'SendMessage', SendMessageRequest.toJSON(params));
    if (problem) throw new RequestMalformedError(problem);
  };
  const hide = (err: unknown): never => {
    if (err instanceof A2AError) throw err;
    logger.error('a2a grpc: request failed', { error: (err as Error)?.message });
    throw new GrpcInternalError();
  };
  const unary =
    <P, R>(call: (params: P, context: Context) => Promise<R>) =>
    (params: P, context: Context) =>
      ready.then(() => call(params, context)).catch(hide);
  const streaming = <P, R>(call: (params: P, context: Context) => AsyncGenerator<R, void, undefined>) =>
    async function* (params: P, context: Context) {
      try {
        await ready;
        yield* call(params, context);
      } catch (err) {
        hide(err);
      }
    };
  return {
    getAgentCard: () => inner.getAgentCard(),
    getAuthenticatedExtendedAgentCard: unary((p, c) => inner.getAuthenticatedExtendedAgentCard(p, c)),
    sendMessage: unary((p: SendMessageRequest, c) => {
      checkSend(p);
      return inner.sendMessage(p, c);
    }),
    sendMessageStream: streaming(async function* (p: SendMessageRequest, c) {
      checkSend(p);
      yield* inner.sendMessageStream(p, c);
    }),
    getTask: unary((p, c) => inner.getTask(p, c)),
    listTasks: unary((p, c) => inner.listTasks(p, c)),
    cancelTask: unary((p, c) => inner.cancelTask(p, c)),
    resubscribe: streaming((p, c) => inner.resubscribe(p, c)),
    createTaskPushNotificationConfig: unary((p, c) => inner.createTaskPushNotificationConfig(p, c)),
    getTaskPushNotificationConfig: unary((p, c) => inner.getTaskPushNotificationConfig(p, c)),
    listTaskPushNotificationConfigs: unary((p, c) => inner.listTaskPushNotificationConfigs(p, c)),
    deleteTaskPushNotificationConfig: unary((p, c) => inner.deleteTaskPushNotificationConfig(p, c)),
  } as A2ARequestHandler;
}

/** The gRPC server: started by the composition root when PARLEY_A2A_GRPC_PORT is set, stopped with it. */
export class A2AGrpcServer {
  readonly #server: grpc.Server;
  #port: number | undefined;

  constructor(
    private readonly options: GrpcOptions,
    handler: A2ARequestHandler,
    private readonly logger: Logger,
    /** Requests wait for what the last process left (routes.ts: bridge.recover()), as over HTTP. */
    ready: Promise<void>,
  ) {
    this.#server = new grpc.Server({
      interceptors: [authInterceptor(options.authenticate)],
      'grpc.max_receive_message_length': options.maxMessageBytes,
      'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    });
    this.#server.addService(
      A2AService,
      grpcService({
        requestHandler: grpcHandler(handler, logger, ready),
        userBuilder: async (call) => {
          const id = options.authenticate(authorizationOf(call.metadata));
          return id ? new KeyUser(id) : new UnauthenticatedUser();
        },
      }),
    );
  }

  /** The port it listens on (after `listen`). */
  get port(): number | undefined {
    return this.#port;
  }

  listen(): Promise<number> {
    const { host, port } = this.options;
    return new Promise((resolve, reject) => {
      this.#server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
        if (err) return reject(new Error(`Cannot listen on ${host}:${port} (PARLEY_A2A_GRPC_PORT): ${err.message}`));
        this.#port = bound;
        this.logger.info(`A2A gRPC listening on ${host}:${bound}`);
        resolve(bound);
      });
    });
  }

  /** Stops taking calls; open streams get a moment, then are cut. */
  close(graceMs = 2_000): Promise<void> {
    if (this.#port === undefined) return Promise.resolve();
    this.#port = undefined;
    return new Promise((resolve) => {
      const force = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, graceMs);
      force.unref();
      this.#server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
