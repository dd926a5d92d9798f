/**
 * The JSON-RPC 2.0 envelope rules every JSON-RPC endpoint (/mcp, /acp, /a2a, the /acp WebSocket) holds
 * a message to before its SDK sees it: an `id` that is a string, a number or null, a string `method`,
 * `params` that are an object or an array. The SDKs assume these (an object id made the ACP SDK answer
 * 500), so a message breaking them gets -32600 Invalid Request instead.
 */

/** Why `message` (one message, or a batch) breaks the envelope rules; undefined when it keeps them. */
export function envelopeProblem(message: unknown): string | undefined {
  if (Array.isArray(message)) {
    for (const m of message) {
      const problem = envelopeProblem(m);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof message !== 'object' || message === null) return 'Invalid Request: a JSON-RPC message must be an object.';
  const { id, method, params } = message as Record<string, unknown>;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    return 'Invalid Request: "id" must be a string, a number or null.';
  }
  if (method !== undefined && typeof method !== 'string') return 'Invalid Request: "method" must be a string.';
  if (params !== undefined && (typeof params !== 'object' || params === null))
    return 'Invalid Request: "params" must be an object or an array.';
  return undefined;
}

/** Longest string id echoed back: a refusal never repeats a huge id (as leadingRequestId, json-text.ts). */
const MAX_ECHOED_ID = 200;

/** The id to answer a refused message with: its own when it is a valid (and short) id, else null. */
export function answerableId(message: unknown): string | number | null {
  const id =
    typeof message === 'object' && message !== null && !Array.isArray(message)
      ? (message as { id?: unknown }).id
      : undefined;
  if (typeof id === 'number') return id;
  return typeof id === 'string' && id.length <= MAX_ECHOED_ID ? id : null;
}
