/**
 * Reads `<id>.answer.json`, what the person (or anyone acting as the model) wrote for one request:
 * `{"content": "…"}` and/or `{"tool_calls": [{"name": "…", "arguments": {…}}]}`. Anything that
 * would not make a sensible model answer for this request is refused with a message that says what
 * to fix; the relay logs it and reads the file again when it changes.
 */
import type { CompletionRequest } from '../scripted-model/answer.ts';
import type { ReplyAnswer } from '../scripted-model/completion-reply.ts';

export type AnswerRead = { ok: true; answer: ReplyAnswer } | { ok: false; error: string };

const KEYS = new Set(['content', 'tool_calls']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The names of the tools the request offered. */
export const offeredTools = (request: CompletionRequest): string[] =>
  (request.tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean);

/** A json_schema response_format's name, when the request asks for one. */
export const jsonSchemaName = (request: CompletionRequest): string | undefined =>
  request.response_format?.type === 'json_schema' ? (request.response_format.json_schema?.name ?? '') : undefined;

function readArguments(raw: unknown, where: string): string | { error: string } {
  if (raw === undefined) return '{}';
  if (isObject(raw)) return JSON.stringify(raw);
  if (typeof raw === 'string') {
    try {
      if (isObject(JSON.parse(raw))) return raw;
    } catch {
      // reported below
    }
    return { error: `${where}.arguments is a string that is not a JSON object` };
  }
  return { error: `${where}.arguments must be an object (or a JSON string of one)` };
}

/** Parses and checks one answer file against the request it answers; `callIdPrefix` makes tool call ids unique. */
export function readAnswer(text: string, request: CompletionRequest, callIdPrefix: string): AnswerRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!isObject(parsed)) return { ok: false, error: 'must be a JSON object with "content" and/or "tool_calls"' };
  const unknown = Object.keys(parsed).filter((k) => !KEYS.has(k));
  if (unknown.length)
    return {
      ok: false,
      error: `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}: use "content" and/or "tool_calls"`,
    };

  const rawContent = parsed.content;
  let content: string | null = null;
  if (typeof rawContent === 'string') content = rawContent;
  else if (isObject(rawContent) || Array.isArray(rawContent)) content = JSON.stringify(rawContent);
  else if (rawContent !== undefined && rawContent !== null)
    return { ok: false, error: '"content" must be a string (or, for a JSON answer, an object)' };

  const toolCalls: ReplyAnswer['toolCalls'] = [];
  if (parsed.tool_calls !== undefined) {
    if (!Array.isArray(parsed.tool_calls)) return { ok: false, error: '"tool_calls" must be an array' };
    const offered = offeredTools(request);
    for (const [i, call] of parsed.tool_calls.entries()) {
      const where = `tool_calls[${i}]`;
      if (!isObject(call) || typeof call.name !== 'string' || !call.name)
        return { ok: false, error: `${where} needs a "name" (one of the offered tools)` };
      if (!offered.includes(call.name))
        return {
          ok: false,
          error: offered.length
            ? `${where}.name "${call.name}" was not offered; the tools are: ${offered.join(', ')}`
            : `${where}: this request offered no tools`,
        };
      const args = readArguments(call.arguments, where);
      if (typeof args !== 'string') return { ok: false, error: args.error };
      toolCalls.push({ id: `${callIdPrefix}_${i}`, name: call.name, arguments: args });
    }
  }
  if (content === null && toolCalls.length === 0)
    return { ok: false, error: 'says nothing: give "content" (text) or a non-empty "tool_calls"' };

  const schema = jsonSchemaName(request);
  if (schema !== undefined && toolCalls.length === 0) {
    try {
      JSON.parse(content!);
    } catch {
      return {
        ok: false,
        error: `the request asks for JSON (response_format json_schema "${schema}") but "content" is not JSON: write the object itself as "content"`,
      };
    }
  }
  return { ok: true, answer: { content, toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop' } };
}
