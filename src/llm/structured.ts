/**
 * Structured output: the JSON schema of a zod schema, how each strategy asks for it (json_schema
 * response_format, a forced tool call, or the schema in the prompt), where the answer is in the
 * reply, tolerant extraction and zod validation, and the one repair turn.
 */
import { z, type ZodType } from 'zod';
import type OpenAI from 'openai';
import type { StructuredStrategy } from './capabilities.ts';
import { extractJson } from './extract-json.ts';
import { schemaExample } from './schema-example.ts';
import type { ChatMessage } from './types.ts';

// Schemas are module-level constants, so their JSON form is computed once (it costs ~0.1 ms per call otherwise).
const jsonSchemas = new WeakMap<ZodType, Record<string, unknown>>();

/** JSON schema of what the model should produce (the schema's input side: defaults may be omitted). */
export function jsonSchemaOf(schema: ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    json = rest;
    jsonSchemas.set(schema, json);
  }
  return json;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

/** Finds the JSON in a reply (prose, fences and thinking tolerated) and validates it with zod. */
export function validateStructured<T>(text: string, schema: ZodType<T>): Validation<T> {
  let data: unknown;
  try {
    data = JSON.parse(extractJson(text));
  } catch (err) {
    return { ok: false, error: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: `does not match the schema: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}` };
}

/** The schema as the model is shown it: compact JSON in a block the scripted model also reads. */
const schemaBlock = (name: string, schema: Record<string, unknown>) =>
  `<parley:schema name="${name}">${JSON.stringify(schema)}</parley:schema>`;

/** The follow-up turn that asks the model to fix its answer (the one repair attempt): the exact error and the schema. */
export function repairMessage(schemaName: string, schema: Record<string, unknown>, error: string): string {
  return (
    `Your previous answer was rejected: it is ${error}.\n` +
    `Reply again with only a JSON object that matches the "${schemaName}" JSON schema below, with no other text:\n${schemaBlock(schemaName, schema)}`
  );
}

/** The instruction the `prompt` strategy adds: the compact schema and a small example. */
export function schemaInstruction(schemaName: string, schema: Record<string, unknown>): string {
  return (
    `Answer with only one JSON object named "${schemaName}" that matches this JSON schema (no prose, no code fence):\n${schemaBlock(schemaName, schema)}\n` +
    `Example of the shape (placeholder values): ${JSON.stringify(schemaExample(schema))}`
  );
}

type Params = Pick<
  OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
  'response_format' | 'tools' | 'tool_choice'
>;

/** What a structured call sends under a strategy: extra request parameters and the messages. */
export function structuredRequest(
  strategy: StructuredStrategy,
  schemaName: string,
  schema: Record<string, unknown>,
  messages: ChatMessage[],
): { params: Params; messages: ChatMessage[] } {
  if (strategy === 'json_schema')
    return {
      params: { response_format: { type: 'json_schema', json_schema: { name: schemaName, schema } } },
      messages,
    };
  if (strategy === 'tool') {
    const tool = {
      type: 'function' as const,
      function: {
        name: schemaName,
        description: `Returns the ${schemaName} as the arguments of this call.`,
        parameters: schema,
      },
    };
    return { params: { tools: [tool], tool_choice: { type: 'function', function: { name: schemaName } } }, messages };
  }
  // prompt: into the first system message (providers that hoist system messages keep it there), else a new one.
  const instruction = schemaInstruction(schemaName, schema);
  const first = messages[0];
  if (first?.role === 'system' && typeof first.content === 'string') {
    return {
      params: {},
      messages: [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)],
    };
  }
  return { params: {}, messages: [{ role: 'system', content: instruction }, ...messages] };
}

/** The text holding the answer: the forced call's arguments (tool strategy), else the content. */
export function structuredText(
  strategy: StructuredStrategy,
  schemaName: string,
  message: OpenAI.Chat.Completions.ChatCompletionMessage | undefined,
): string {
  if (strategy === 'tool') {
    const calls = (message?.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
    const call = calls.find((c) => c.function.name === schemaName) ?? calls[0];
    if (call) return call.function.arguments;
  }
  return message?.content ?? '';
}
