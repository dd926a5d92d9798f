/**
 * A2A mounted as the composition root mounts it: the real HTTP app (API-key auth, Host/Origin check, body
 * limit, JSON body checks) around a2aEndpoint, with its gRPC binding on a free 127.0.0.1 port and, when
 * asked, a signing key. The real engine (createTestParley) behind it, with the fixture MCP server whose
 * write tool needs approval (NOTER, NOTE_QUERY). Clients for each binding, as a given key.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Hono } from 'hono';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  type CallInterceptor,
  type Client,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { createHttpApp } from '../../../src/http/app.ts';
import { authenticateBearer, callerOf } from '../../../src/http/auth.ts';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import { silentLogger } from '../../../src/log.ts';
import { a2aEndpoint, cardSigner, JWKS_PATH, type A2AEndpoint } from '../../../src/protocols/a2a/index.ts';
import { createTestParley, type TestParley } from '../engine.ts';
import { listen, type TestServer } from '../http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';
import { NOTER } from './a2a-helpers.ts';

export interface A2AServerRig {
  parley: TestParley;
  fixture: FixtureHttpServer;
  server: TestServer;
  endpoint: A2AEndpoint;
  /** `127.0.0.1:<port>` of the gRPC binding. */
  grpcAddress: string;
  close(): Promise<void>;
}

export interface A2AServerRigOptions {
  /** API keys; empty: auth off. */
  keys?: string[];
  /** A PEM private key to sign the card with. */
  signingKey?: string;
}

/** A fresh EC P-256 private key, PKCS#8 PEM: what PARLEY_A2A_CARD_SIGNING_KEY holds. */
export const newSigningKey = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

export async function startA2AServerRig(options: A2AServerRigOptions = {}): Promise<A2AServerRig> {
  const keys = options.keys ?? [];
  const fixture = await startFixtureHttpServer();
  const parley = await createTestParley({
    roster: false,
    specialists: [NOTER],
    mcpServers: { fx: { url: fixture.mcpUrl } },
  });
  const config = { ...parley.config, server: { ...parley.config.server, apiKeys: keys } };
  const bearer = authenticateBearer(keys);
  const signer = options.signingKey ? await cardSigner(options.signingKey) : undefined;
  const endpoint = a2aEndpoint({
    engine: parley.engine,
    store: parley.store,
    config,
    logger: silentLogger,
    callerOf: (c) => callerOf(c).id,
    grpc: { host: '127.0.0.1', port: 0, authenticate: (authorization) => bearer(authorization)?.id },
    ...(signer ? { signer } : {}),
  });
  const app = createHttpApp({
    version: 'test',
    apiKeys: keys,
    bodyLimitBytes: 64 * 1024,
    logger: silentLogger,
    readiness: [],
    publicPaths: ['/.well-known/agent-card.json', JWKS_PATH],
    routes: [
      { path: '/', app: endpoint.app },
      { path: '/', app: approvalRoutes({ broker: parley.approvals }) },
    ],
  });
  const server = await listen(app as unknown as Hono);
  const port = await endpoint.grpc!.listen();
  return {
    parley,
    fixture,
    server,
    endpoint,
    grpcAddress: `127.0.0.1:${port}`,
    close: async () => {
      await endpoint.grpc?.close();
      await server.close();
      await parley.close();
      await fixture.close();
    },
  };
}

/** Sends `authorization: Bearer <key>` with every call (gRPC metadata, HTTP headers). */
const bearerInterceptor = (key: string): CallInterceptor => ({
  before: async (args) => {
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${key}` },
    };
  },
  after: async () => {},
});

/** The SDK client with only its gRPC transport, picked from the card at `url`, as `key` (none: no key). */
export function a2aGrpcClientAs(url: string, key?: string): Promise<Client> {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
      ...(key ? { clientConfig: { interceptors: [bearerInterceptor(key)] } } : {}),
      cardResolver: new DefaultAgentCardResolver(),
    }),
  ).createFromUrl(url);
}

/** A raw gRPC client of lf.a2a.v1.A2AService, for what the SDK client never sends (no version, a wrong one). */
export function rawGrpcClient(address: string) {
  const Ctor = grpc.makeGenericClientConstructor(A2AService, 'A2AService');
  return new Ctor(address, grpc.credentials.createInsecure()) as grpc.Client & Record<string, unknown>;
}

/** A unary call on a raw client: the reply, or the ServiceError. */
export function rawCall(
  client: grpc.Client & Record<string, unknown>,
  method: string,
  request: unknown,
  metadata: Record<string, string>,
): Promise<{ value?: unknown; error?: grpc.ServiceError }> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise((resolve) => {
    (client[method] as (r: unknown, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v: unknown) => void) => void)(
      request,
      md,
      (error, value) => resolve(error ? { error } : { value }),
    );
  });
}
