/**
 * Request bodies: the size limit (413), and one reader for every JSON endpoint. `jsonBodies` checks a
 * body once, before any route or protocol SDK reads it: a body that is not JSON-typed gets 415, one
 * that breaks the rules of json-text.ts (strict UTF-8, no BOM, bounded nesting, no lone surrogates,
 * valid JSON) gets 400; in the API's error shape, or as a JSON-RPC error on the JSON-RPC endpoints.
 * Routes then read the checked value with readJson (the SDKs re-read the same bytes).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodType } from 'zod';
import { z } from 'zod';
import { ApiError, jsonError } from './errors.ts';
import { answerableId, envelopeProblem } from './json-rpc-envelope.ts';
import { leadingRequestId, parseJsonBytes, type JsonRefusal } from './json-text.ts';

export function limitBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = (c: Context) => jsonError(c, 413, `The request body is larger than ${maxBytes} bytes.`);
  const limit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    // A declared length over the limit is refused from the headers alone, before anything touches the
    // body: hono's bodyLimit reads `c.req.raw.body`, which makes @hono/node-server wrap the socket in a
    // web stream nobody drains, so the unread rest stalls and the keep-alive connection is closed
    // (for bodies past the stream's buffers, ~200 KB). Untouched, the server drains it and keeps the connection.
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined && Number(length) > maxBytes)
      return tooLarge(c);
    return limit(c, next);
  };
}

/** application/json or any application/*+json, with parameters (`; charset=utf-8`) allowed. */
export const isJsonType = (type: string | undefined) => /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type ?? '');

/** Deepest nesting accepted when no setting says otherwise (PARLEY_JSON_MAX_DEPTH). */
export const DEFAULT_JSON_MAX_DEPTH = 64;

const CHECKED = 'jsonBody';

export interface JsonBodyOptions {
  maxDepth: number;
  /** Paths answered with JSON-RPC errors (`/mcp`, `/acp`, `/a2a`; a trailing slash matches too). */
  jsonRpcPaths: string[];
  /**
   * Path prefixes whose routes read and check their bodies themselves, by the same rules
   * (parseJsonBytes), to refuse a bad one in their protocol's error shape (A2A's REST binding).
   */
  selfCheckedPrefixes?: string[];
  /**
   * JSON-RPC paths whose route refuses a body that is not JSON-typed itself, in its protocol's terms
   * (A2A's `/a2a` answers ContentTypeNotSupportedError, -32005, as its spec asks).
   */
  ownContentTypePaths?: string[];
}

const hasBody = (c: Context) => {
  const length = c.req.header('content-length');
  return length !== undefined ? length.trim() !== '0' : c.req.header('transfer-encoding') !== undefined;
};

/**
 * Checks every request body (not GET/HEAD/OPTIONS, not empty) as JSON; on the JSON-RPC paths an empty
 * body that claims to be JSON too, and a GET/HEAD/OPTIONS body typed JSON loses its type. Mount it after the body limit,
 * so reading is bounded; a read over the limit throws for the limit's 413.
 */
export function jsonBodies(options: JsonBodyOptions): MiddlewareHandler {
  const rpc = new Set(options.jsonRpcPaths.map((p) => p.replace(/\/$/, '')));
  const selfChecked = options.selfCheckedPrefixes ?? [];
  const ownContentType = new Set((options.ownContentTypePaths ?? []).map((p) => p.replace(/\/$/, '')));
  return async (c, next) => {
    if (selfChecked.some((prefix) => c.req.path.startsWith(prefix))) return next();
    const jsonRpc = rpc.has(c.req.path.replace(/\/$/, ''));
    const type = c.req.header('content-type');
    if (!hasBody(c)) {
      // The MCP SDK's Hono helper parses any request that says it is JSON, body or not, and answers
      // an empty one in plain text: an empty POST is a parse error; elsewhere the type says nothing.
      if (!jsonRpc || !isJsonType(type)) return next();
      if (c.req.method === 'POST') return rpcError(c, 400, null, -32700, 'Parse error: the body is empty.');
      dropContentType(c);
      return next();
    }
    if (['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) {
      // Nobody reads a body these methods carry, but the MCP helper would parse it (the same plain-text 400).
      if (jsonRpc && isJsonType(type)) dropContentType(c);
      return next();
    }
    if (!isJsonType(type)) {
      if (ownContentType.has(c.req.path.replace(/\/$/, ''))) return next();
      const message = `Send the body as application/json${type ? `, not ${type.split(';', 1)[0]}` : ''}.`;
      return jsonRpc ? rpcError(c, 415, null, -32600, message) : jsonError(c, 415, message);
    }
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    // The SDKs behind these routes read the raw request again: give them the same bytes.
    c.req.raw = new Request(c.req.raw, { body: bytes });
    if (bytes.length === 0) return next();
    const parsed = parseJsonBytes(bytes, options.maxDepth);
    if (!parsed.ok) {
      if (!jsonRpc) return jsonError(c, 400, parsed.message, 'invalid_json');
      const id = leadingRequestId(new TextDecoder().decode(bytes.subarray(0, 512)));
      return rpcError(c, 400, id, parsed.kind === 'syntax' ? -32700 : -32600, parsed.message);
    }
    const problem = jsonRpc ? envelopeProblem(parsed.value) : undefined;
    if (problem) return rpcError(c, 400, answerableId(parsed.value), -32600, problem);
    c.set(CHECKED as never, { value: parsed.value } as never);
    // The MCP SDK's Hono helper takes a body parsed upstream as is.
    if (jsonRpc) c.set('parsedBody' as never, parsed.value as never);
    return next();
  };
}

/** The request without its Content-Type: for a body nothing reads, so the type says nothing. */
function dropContentType(c: Context): void {
  const headers = new Headers(c.req.raw.headers);
  headers.delete('content-type');
  c.req.raw = new Request(c.req.raw, { headers });
}

function rpcError(
  c: Context,
  status: ContentfulStatusCode,
  id: string | number | null,
  code: number,
  message: string,
): Response {
  return c.json({ jsonrpc: '2.0', id, error: { code, message } }, status);
}

/**
 * A look at a JSON body that leaves it for the handler (protocol routes peek for an initialize): the
 * value jsonBodies checked, or, without it in front, a parse of a copy; undefined when not JSON.
 */
export async function peekJson(c: Context): Promise<unknown> {
  const checked = c.get(CHECKED as never) as { value: unknown } | undefined;
  return checked
    ? checked.value
    : c.req.raw
        .clone()
        .json()
        // Not JSON (or no body): peeking says so with undefined; the handler reports the body itself.
        .catch(() => undefined);
}

/** A JSON body nobody checked yet (a route app served on its own, without jsonBodies in front). */
async function checkNow(c: Context, maxDepth: number): Promise<unknown> {
  if (!isJsonType(c.req.header('content-type'))) throw new ApiError(415, 'Send the body as application/json.');
  const parsed = parseJsonBytes(new Uint8Array(await c.req.arrayBuffer()), maxDepth);
  if (!parsed.ok) throw refusal(parsed);
  return parsed.value;
}

const refusal = (parsed: JsonRefusal) => new ApiError(400, parsed.message, 'invalid_json');

/**
 * The request's JSON body, which must be an object, validated by `schema` when given. Not JSON
 * content-type → 415; not UTF-8 JSON, too deep, not an object → 400 invalid_json; schema mismatch → 400
 * with zod's explanation.
 */
export async function readJson<T = unknown>(c: Context, schema?: ZodType<T>): Promise<T> {
  const checked = c.get(CHECKED as never) as { value: unknown } | undefined;
  const data = checked ? checked.value : await checkNow(c, DEFAULT_JSON_MAX_DEPTH);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ApiError(400, 'The request body must be a JSON object.', 'invalid_json');
  if (!schema) return data as T;
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new ApiError(400, `Invalid request body: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
  return parsed.data;
}
