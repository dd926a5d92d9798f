/**
 * The params check of Parley's MCP server (HTTP and stdio): each request it answers, against the
 * SDK's own published schema for that request (specTypeSchemas), before the SDK dispatches it.
 * The SDK validates too, but answers a mismatch with -32603 Internal error and the raw list of
 * zod issues as the message; here it is -32602 Invalid params with one sentence naming the field
 * ("params.cursor: Invalid input: expected string, received array"), and the session goes on.
 * Methods Parley does not answer are left to the SDK (-32601), notifications too (no answer is sent).
 */
import {
  INVALID_PARAMS,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  specTypeSchemas,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { issuesSentence } from '../shared/schema-issues.ts';

/** The requests McpServer answers for the capabilities Parley declares (tools, resources, prompts, completions, logging). */
const REQUESTS = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
  'prompts/list': specTypeSchemas.ListPromptsRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'completion/complete': specTypeSchemas.CompleteRequest,
  'logging/setLevel': specTypeSchemas.SetLevelRequest,
} as const;

/** What is wrong with a request's params, in one sentence, or undefined when they are fine (or not Parley's to check). */
export function paramsProblem(method: string, params: unknown): string | undefined {
  if (!Object.hasOwn(REQUESTS, method)) return undefined;
  const checked = REQUESTS[method as keyof typeof REQUESTS]['~standard'].validate({
    method,
    ...(params === undefined ? {} : { params }),
  });
  if (checked instanceof Promise) return undefined;
  return checked.issues ? `Invalid params: ${issuesSentence(checked.issues)}` : undefined;
}

const isModernClaim = (params: unknown): boolean =>
  typeof (params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[PROTOCOL_VERSION_META_KEY] === 'string';

/**
 * Holds every 2025-era request `transport` delivers to its server to `paramsProblem`: a request that fails
 * gets its -32602 answer through the transport (on the same stream the SDK would have used) and
 * never reaches the server. Call after `server.connect(transport)`, which sets `onmessage`.
 */
export function checkParams(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    // A 2026-07-28 request (its `_meta` claims a revision) is checked by the SDK's own envelope ladder.
    const modern = isJSONRPCRequest(message) && isModernClaim(message.params);
    const problem = isJSONRPCRequest(message) && !modern ? paramsProblem(message.method, message.params) : undefined;
    if (problem === undefined) return deliver(message, extra);
    const { id } = message as { id: string | number };
    // The client left: nobody to tell its params were wrong.
    transport.send({ jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: problem } }).catch(() => undefined);
  };
}
