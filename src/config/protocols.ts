/** The settings of protocols (docs/configuration.md, "Protocols"). */
import { z } from 'zod';
import { port, positiveInt, text } from './parsers.ts';
import type { Setting } from './setting.ts';

export const PROTOCOL_SETTINGS = [
  {
    env: 'PARLEY_OPENAI_ROUTING',
    at: 'protocols.openaiRouting',
    schema: z.enum(['auto', 'passthrough', 'orchestration', 'council']),
    default: 'auto',
    description: 'Default X-Routing-Mode of /v1/chat/completions.',
  },
  {
    env: 'PARLEY_SSE_HEARTBEAT_MS',
    at: 'protocols.sseHeartbeatMs',
    schema: positiveInt,
    default: '15000',
    description: 'Heartbeat comment interval on idle event streams.',
  },
  {
    env: 'PARLEY_MCP_MAX_SESSIONS',
    at: 'protocols.mcpSessions.total',
    schema: positiveInt,
    default: '256',
    description:
      'Open MCP sessions (/mcp) in total; over it the least recently used idle session is closed, or, with none idle, 503 with Retry-After.',
  },
  {
    env: 'PARLEY_MCP_MAX_SESSIONS_PER_CALLER',
    at: 'protocols.mcpSessions.perCaller',
    schema: positiveInt,
    default: '32',
    description:
      "Open MCP sessions per caller (API key); over it the caller's least recently used idle session is closed, or, with none idle, 429 with Retry-After.",
  },
  {
    env: 'PARLEY_ACP_MAX_CONNECTIONS',
    at: 'protocols.acpConnections.total',
    schema: positiveInt,
    default: '256',
    description:
      'Open ACP connections (/acp over HTTP and WebSocket) in total; over it the least recently used idle HTTP connection is closed, or, with none idle, 503 with Retry-After.',
  },
  {
    env: 'PARLEY_ACP_MAX_CONNECTIONS_PER_CALLER',
    at: 'protocols.acpConnections.perCaller',
    schema: positiveInt,
    default: '32',
    description:
      "Open ACP connections per caller (API key); over it the caller's least recently used idle HTTP connection is closed, or, with none idle, 429 with Retry-After.",
  },
  {
    env: 'PARLEY_A2A_TASK_RETENTION_MAX',
    at: 'protocols.a2aTaskRetentionMax',
    schema: positiveInt,
    default: '1000',
    description:
      'How many finished A2A tasks stay in the task store (GetTask, ListTasks, earlier turns of a context); beyond it the task that finished first is dropped. Running and input-required tasks are always kept.',
  },
  {
    env: 'PARLEY_A2A_PUSH_ALLOW_PRIVATE',
    at: 'protocols.a2aPush.allowPrivate',
    schema: z.stringbool(),
    default: 'false',
    description:
      'Allow A2A push-notification webhooks on loopback, private, link-local and reserved addresses (checked when a config is set and again at each send). Off: such a webhook is refused, so a client cannot make Parley call into its network.',
  },
  {
    env: 'PARLEY_A2A_PUSH_MAX_CONFIGS',
    at: 'protocols.a2aPush.maxConfigs',
    schema: positiveInt,
    default: '10',
    description: 'How many push-notification configs one A2A task may have; one more is refused.',
  },
  {
    env: 'PARLEY_A2A_PUSH_MAX_ATTEMPTS',
    at: 'protocols.a2aPush.maxAttempts',
    schema: positiveInt,
    default: '8',
    description:
      'How many times a push notification is sent before it is given up (network errors, 408, 429 and 5xx are retried with exponential backoff and jitter; other answers are final).',
  },
  {
    env: 'PARLEY_A2A_PUSH_RETRY_BASE_MS',
    at: 'protocols.a2aPush.retryBaseMs',
    schema: positiveInt,
    default: '1000',
    description:
      'The first retry delay of a push notification; each retry doubles it (up to 10 minutes), with jitter. A Retry-After header wins when it asks for longer.',
  },
  {
    env: 'PARLEY_A2A_PUSH_TIMEOUT_MS',
    at: 'protocols.a2aPush.timeoutMs',
    schema: positiveInt,
    default: '10000',
    description: 'How long one push-notification request may take before it counts as failed (and is retried).',
  },
  {
    env: 'PARLEY_A2A_GRPC_PORT',
    at: 'protocols.a2aGrpcPort',
    schema: port,
    description:
      "Serve A2A's gRPC binding on this port (0 picks a free one), on PARLEY_HOST, announced in the agent card. Unset: no gRPC.",
  },
  {
    env: 'PARLEY_A2A_CARD_SIGNING_KEY',
    at: 'protocols.a2aCardSigningKey',
    schema: text,
    description:
      'Sign the A2A agent card (JWS, A2A AgentCardSignature) with this private key: a path to a PEM file (PKCS#8: EC P-256 or P-384, Ed25519, or RSA), or the PEM itself. The public key is served at /.well-known/jwks.json. Unset: the card is not signed.',
  },
  {
    env: 'PARLEY_MCP_STATE_SECRET',
    at: 'protocols.mcpStateSecret',
    schema: z.string().min(32),
    description:
      'The HMAC secret (at least 32 characters) that signs MCP 2026-07-28 requestState, so a client cannot forge or alter an approval round. Unset: a random key per process, or with PARLEY_REDIS_URL one random key the replicas share through Redis.',
  },
] as const satisfies readonly Setting[];
