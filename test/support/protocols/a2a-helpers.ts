/**
 * A2A test rig: the real engine (createTestParley) behind a2aRoutes + /api/approve on 127.0.0.1,
 * a fixture MCP server whose destructive tool makes runs stop for approval, and message builders
 * for the @a2a-js/sdk client.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import {
  Role,
  TaskState,
  type ListTasksRequest,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { a2aRoutes } from '../../../src/protocols/a2a/index.ts';
import { approvalRoutes } from '../../../src/hitl/routes.ts';
import { silentLogger } from '../../../src/log.ts';
import { createTestParley, type TestParley, type TestParleyOptions } from '../engine.ts';
import { listen, type TestServer } from '../http.ts';
import { startFixtureHttpServer, type FixtureHttpServer } from '../../fixtures/tools/http-server.ts';

export interface A2ARig {
  parley: TestParley;
  fixture: FixtureHttpServer;
  server: TestServer;
  client: Client;
  close(): Promise<void>;
}

/** The specialist whose only tool is the fixture's destructive write_note. */
export const NOTER = {
  id: 'noter',
  name: 'noter',
  description: 'Keeps notes: writes note files',
  kind: 'prompt' as const,
  domains: ['notes'],
  prompt: 'You keep notes.',
  endpoint: '',
  modelRole: 'specialist' as const,
  tools: ['fx/write_note'],
  sourceId: 'skills:test-roster',
  available: true,
};

/** A query the scripted model plans onto the noter, whose tool call then needs approval. */
export const NOTE_QUERY =
  'noter: keep notes [[route:plan]] [[steps:1]] [[tool:fx/write_note {"path":"a2a.txt","content":"hello"}]]';

export const HEARTBEAT_MS = 100;

export async function startA2ARig(options: TestParleyOptions = {}): Promise<A2ARig> {
  const fixture = await startFixtureHttpServer();
  const parley = await createTestParley({
    roster: false,
    specialists: [NOTER],
    mcpServers: { fx: { url: fixture.mcpUrl } },
    ...options,
  });
  const app = new Hono();
  const server = await listen(app);
  // A short heartbeat, so every streaming test also proves clients skip the comment lines.
  const config = { ...parley.config, protocols: { ...parley.config.protocols, sseHeartbeatMs: HEARTBEAT_MS } };
  app.route(
    '/',
    a2aRoutes({
      engine: parley.engine,
      store: parley.store,
      config,
      logger: silentLogger,
      publicUrl: server.url,
    }),
  );
  app.route('/', approvalRoutes({ broker: parley.approvals }));
  const client = await new ClientFactory().createFromUrl(server.url);
  return {
    parley,
    fixture,
    server,
    client,
    close: async () => {
      await server.close();
      await parley.close();
      await fixture.close();
    },
  };
}

export const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
export const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

export function send(
  parts: Part[],
  on: Partial<Pick<Message, 'taskId' | 'contextId'>> = {},
  metadata?: Record<string, unknown>,
): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      role: Role.ROLE_USER,
      parts,
      contextId: on.contextId ?? '',
      taskId: on.taskId ?? '',
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata,
  };
}

/** The task state an event reports (task snapshots and status updates), else undefined. */
export function stateOf(e: StreamResponse): TaskState | undefined {
  if (e.payload?.$case === 'task') return e.payload.value.status?.state;
  if (e.payload?.$case === 'statusUpdate') return e.payload.value.status?.state;
  return undefined;
}

export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

export function taskIdOf(events: StreamResponse[]): string {
  const first = events[0]?.payload;
  if (first?.$case !== 'task') throw new Error('a stream must start with the task');
  return first.value.id;
}

/** The `parley.approval` data part of the last INPUT_REQUIRED status in the events. */
export function approvalPart(events: StreamResponse[]): {
  pending: { request_id: string; toolCalls: { toolCallId: string; tool: string }[] }[];
} {
  const last = [...events]
    .reverse()
    .find((e) => e.payload?.$case === 'statusUpdate' && stateOf(e) === TaskState.TASK_STATE_INPUT_REQUIRED);
  if (last?.payload?.$case !== 'statusUpdate') throw new Error('no input-required status');
  const part = last.payload.value.status?.message?.parts.find((p) => p.content?.$case === 'data');
  if (part?.content?.$case !== 'data') throw new Error('input-required without a data part');
  return part.content.value;
}

export const jsonRpc = (url: string, body: string, version = '1.0') =>
  fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': version },
    body,
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { id: unknown; error?: { code: number; message: string }; result?: unknown },
  }));

/**
 * The SDK client at `url` sending `key` as its bearer token: JSON-RPC (chosen from the card), or with
 * `rest` only the HTTP+JSON transport. `urls` records every URL it fetched.
 */
export function a2aClientAs(
  url: string,
  key: string,
  options: { rest?: boolean; urls?: string[] } = {},
): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    options.urls?.push(String(input));
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [options.rest ? new RestTransportFactory({ fetchImpl }) : new JsonRpcTransportFactory({ fetchImpl })],
      ...(options.rest ? { preferredTransports: ['HTTP+JSON'] } : {}),
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  ).createFromUrl(url);
}

/** ListTasks with every field the request needs defaulted (all tasks of the caller, first page). */
export const listTasks = (client: Client, params: Partial<ListTasksRequest> = {}) =>
  client.listTasks({
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
    ...params,
  });
