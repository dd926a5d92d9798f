/** Structured output: the JSON schema sent in response_format, and validation of the model's answer. */
import { z, type ZodType } from 'zod';

// Schemas are module-level constants, so their JSON form is computed once (it costs ~0.1 ms per call otherwise).
const jsonSchemas = new WeakMap<ZodType, Record<string, unknown>>();

/** JSON schema of what the model should produce (the schema's input side: defaults may be omitted). */
export function jsonSchemaOf(schema: ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    json = rest;
    jsonSchemas.set(schema, json);
  }
  return json;
}

/** The JSON inside a reply, tolerating a ```json fence some models add despite response_format. */
function extractJson(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

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

/** The follow-up turn that asks the model to fix its answer (the one repair attempt). */
export function repairMessage(schemaName: string, error: string): string {
  return `Your previous answer was rejected: it is ${error}. Reply again with only a JSON object that matches the "${schemaName}" JSON schema, with no other text.`;
}
