/**
 * zod schemas for the params of every A2A v1.0 JSON-RPC method, in ProtoJSON (camelCase names; the
 * caller turns snake_case names into camelCase first, as ProtoJSON allows both). They check types
 * only, so that the SDK's fromJSON never meets a value it would coerce (`{"text": 42}` became "42",
 * `"role": "ROLE_SYSTEM"` an unrecognized role that still ran). Unknown fields are ignored, as
 * ProtoJSON parsers do; null means "not set".
 */
import { z } from 'zod';

const str = z.string().nullish();
const id = z.string().min(1, 'must not be empty');
const strings = z.array(z.string()).nullish();
const struct = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).nullish();
/** ProtoJSON int32: a JSON number or a string of digits. */
const NOT_A_COUNT = 'must be a non-negative integer';
const count = z
  .union([z.number().int(NOT_A_COUNT).nonnegative(NOT_A_COUNT), z.string().regex(/^\d+$/, NOT_A_COUNT)], {
    error: NOT_A_COUNT,
  })
  .nullish();

const role = z.union([z.enum(['ROLE_USER', 'ROLE_AGENT']), z.literal(1), z.literal(2)], {
  error: 'must be "ROLE_USER" or "ROLE_AGENT"',
});

const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
const taskState = z.union(
  [
    z.enum(TASK_STATES),
    z
      .number()
      .int()
      .min(0)
      .max(TASK_STATES.length - 1),
  ],
  {
    error: `must be one of ${TASK_STATES.join(', ')}`,
  },
);

const CONTENT = ['text', 'raw', 'url', 'data'] as const;
const part = z
  .object({
    text: str,
    raw: str,
    url: str,
    data: z.unknown().optional(),
    metadata: struct,
    filename: str,
    mediaType: str,
  })
  .refine((p) => CONTENT.filter((k) => p[k] !== undefined && p[k] !== null).length === 1, {
    error: 'a part needs exactly one of text, raw, url, data',
  });

const message = z.object({
  messageId: id,
  contextId: str,
  taskId: str,
  role,
  parts: z.array(part).min(1, 'must have at least one part'),
  metadata: struct,
  extensions: strings,
  referenceTaskIds: strings,
});

const pushConfig = z.object({
  tenant: str,
  id: str,
  taskId: id,
  url: z.string(),
  token: str,
  authentication: z.object({ scheme: str, credentials: str }).nullish(),
});

const sendMessage = z.object({
  tenant: str,
  message,
  configuration: z
    .object({
      acceptedOutputModes: strings,
      taskPushNotificationConfig: pushConfig.omit({ taskId: true }).extend({ taskId: str }).nullish(),
      historyLength: count,
      returnImmediately: z.boolean().nullish(),
    })
    .nullish(),
  metadata: struct,
});

const taskRef = z.object({ tenant: str, id });
const pushConfigRef = z.object({ tenant: str, taskId: id, id });

export const V1_PARAMS: Record<string, z.ZodType> = {
  SendMessage: sendMessage,
  SendStreamingMessage: sendMessage,
  GetTask: taskRef.extend({ historyLength: count }),
  ListTasks: z.object({
    tenant: str,
    contextId: str,
    status: taskState.nullish(),
    pageSize: count,
    pageToken: str,
    historyLength: count,
    statusTimestampAfter: str,
    includeArtifacts: z.boolean().nullish(),
  }),
  CancelTask: taskRef.extend({ metadata: struct }),
  SubscribeToTask: taskRef,
  CreateTaskPushNotificationConfig: pushConfig,
  GetTaskPushNotificationConfig: pushConfigRef,
  DeleteTaskPushNotificationConfig: pushConfigRef,
  ListTaskPushNotificationConfigs: z.object({ tenant: str, taskId: id, pageSize: count, pageToken: str }),
  GetExtendedAgentCard: z.object({ tenant: str }).nullish(),
};
