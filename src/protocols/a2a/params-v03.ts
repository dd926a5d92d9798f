/**
 * zod schemas for the params of every A2A v0.3 JSON-RPC method (the v0.3 JSON schema's shapes).
 * They check types only, so that the SDK's v0.3 translator never meets a value it would trip on
 * (`{"id": 5}` answered "taskId.trim is not a function") or spread (`"referenceTaskIds": "abc"`).
 * Unknown fields are ignored; null counts as absent, as Python clients send it.
 */
import { z } from 'zod';

const str = z.string().nullish();
const id = z.string().min(1, 'must not be empty');
const strings = z.array(z.string()).nullish();
const object = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });
const metadata = object.nullish();
const NOT_A_COUNT = 'must be a non-negative integer';
const count = z.number(NOT_A_COUNT).int(NOT_A_COUNT).nonnegative(NOT_A_COUNT).nullish();

const file = z.union(
  [z.object({ bytes: z.string(), mimeType: str, name: str }), z.object({ uri: z.string(), mimeType: str, name: str })],
  {
    error: 'must carry bytes (base64) or uri',
  },
);
const part = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('text'), text: z.string(), metadata }),
    z.object({ kind: z.literal('file'), file, metadata }),
    z.object({ kind: z.literal('data'), data: object, metadata }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'kind must be "text", "file" or "data"' : undefined) },
);

const message = z.object({
  kind: z.literal('message').nullish(),
  messageId: id,
  role: z.enum(['user', 'agent'], { error: 'must be "user" or "agent"' }),
  parts: z.array(part).min(1, 'must have at least one part'),
  contextId: str,
  taskId: str,
  referenceTaskIds: strings,
  extensions: strings,
  metadata,
});

const pushConfig = z.object({
  url: z.string(),
  id: str,
  token: str,
  authentication: z.object({ schemes: z.array(z.string()), credentials: str }).nullish(),
});

const sendMessage = z.object({
  message,
  configuration: z
    .object({
      acceptedOutputModes: strings,
      historyLength: count,
      pushNotificationConfig: pushConfig.nullish(),
      blocking: z.boolean().nullish(),
    })
    .nullish(),
  metadata,
});

const taskId = z.object({ id, metadata });

export const V03_PARAMS: Record<string, z.ZodType> = {
  'message/send': sendMessage,
  'message/stream': sendMessage,
  'tasks/get': taskId.extend({ historyLength: count }),
  'tasks/cancel': taskId,
  'tasks/resubscribe': taskId,
  'tasks/pushNotificationConfig/set': z.object({ taskId: id, pushNotificationConfig: pushConfig }),
  'tasks/pushNotificationConfig/get': taskId.extend({ pushNotificationConfigId: str }),
  'tasks/pushNotificationConfig/list': taskId,
  'tasks/pushNotificationConfig/delete': taskId.extend({ pushNotificationConfigId: z.string() }),
  'agent/getAuthenticatedExtendedCard': z.unknown(),
};
