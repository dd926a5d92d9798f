/** Request bodies: the size limit (413) and JSON reading with 415/400 in the API's error shape. */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ZodType } from 'zod';
import { z } from 'zod';
import { ApiError, jsonError } from './errors.ts';

export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: (c) => jsonError(c, 413, `The request body is larger than ${maxBytes} bytes.`) });
}

/**
 * The request's JSON body, validated by `schema` when given. Not JSON content-type → 415,
 * unparseable → 400 invalid_json, schema mismatch → 400 with zod's explanation.
 */
export async function readJson<T = unknown>(c: Context, schema?: ZodType<T>): Promise<T> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) throw new ApiError(415, 'Send the body as application/json.');
  let data: unknown;
  try {
    data = JSON.parse(await c.req.text());
  } catch (err) {
    throw new ApiError(400, `The request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, 'invalid_json');
  }
  if (!schema) return data as T;
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ApiError(400, `Invalid request body: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
  return parsed.data;
}
