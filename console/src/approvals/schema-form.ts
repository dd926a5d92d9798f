/**
 * A form from a JSON schema (a tool's inputSchema, an elicitation's requestedSchema): one field per
 * top-level property, typed inputs for strings, numbers, booleans and enums, JSON text for anything
 * nested. Values are checked with zod's own JSON-schema reader before anything is sent.
 */
import { z } from 'zod';

export type FieldKind = 'text' | 'textarea' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

export interface Field {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
}

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function kindOf(property: Schema, current: unknown): Pick<Field, 'kind' | 'options'> {
  if (Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string'))
    return { kind: 'enum', options: property.enum as string[] };
  switch (property.type) {
    case 'string':
      return { kind: typeof current === 'string' && current.length > 80 ? 'textarea' : 'text' };
    case 'number':
      return { kind: 'number' };
    case 'integer':
      return { kind: 'integer' };
    case 'boolean':
      return { kind: 'boolean' };
    default:
      return { kind: 'json' };
  }
}

/** The fields of an object schema; a schema without properties gets one JSON field for the whole value. */
export function fieldsOf(schema: Schema | undefined, values: Record<string, unknown>): Field[] {
  const properties = isObject(schema?.properties) ? schema.properties : undefined;
  if (!properties) return Object.keys(values).map((name) => ({ name, label: name, kind: 'json', required: false }));
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    return {
      name,
      label: typeof property.title === 'string' ? property.title : name,
      required: required.has(name),
      ...(typeof property.description === 'string' ? { description: property.description } : {}),
      ...kindOf(property, values[name]),
    };
  });
}

/** What an input shows for a value. */
export function textOf(field: Field, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

/** The value an input's text stands for; an error message when it cannot be read. */
export function valueOf(field: Field, text: string): { value?: unknown; error?: string } {
  // An empty field is a missing value (as in any HTML form): required ones are then refused by name.
  if (text === '') return {};
  switch (field.kind) {
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: `${field.label} must be a number` };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { error: `${field.label} must be a whole number` };
      return { value: n };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: `${field.label} is not valid JSON` };
      }
    default:
      return { value: text };
  }
}

/** Reads every field and checks the whole value against the schema: the value, and what is wrong with it. */
export function readForm(
  schema: Schema | undefined,
  fields: Field[],
  texts: Record<string, string>,
): { value: Record<string, unknown>; problems: string[] } {
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const read = valueOf(field, texts[field.name] ?? '');
    if (read.error) problems.push(read.error);
    else if (read.value !== undefined) value[field.name] = read.value;
  }
  if (problems.length === 0) problems.push(...validate(schema, value));
  return { value, problems };
}

/** Checks a whole value against the schema: a list of "field: problem" lines, empty when it passes. */
export function validate(schema: Schema | undefined, value: Record<string, unknown>): string[] {
  if (!schema) return [];
  let check: z.ZodType;
  try {
    check = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return []; // a schema zod cannot read: the tool server still checks what it gets
  }
  const result = check.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`);
}
