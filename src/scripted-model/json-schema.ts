/**
 * Builds JSON values against a JSON schema (the subset response_format and tool parameters use):
 * a minimal valid instance, a value shaped from a hint (what the scripted model means to say,
 * fitted to whatever field names and types the caller's schema has), and a deliberately invalid one.
 */
export type JsonSchema = Record<string, unknown>;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Follows local $ref ("#/$defs/x", "#/definitions/x") against the root schema. */
function deref(schema: unknown, root: JsonSchema): JsonSchema {
  let s = isObj(schema) ? schema : {};
  for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
    const path = s.$ref.replace(/^#\/?/, '').split('/').filter(Boolean);
    let target: unknown = root;
    for (const key of path) target = isObj(target) ? target[key] : undefined;
    s = isObj(target) ? target : {};
  }
  return s;
}

/** The first variant of anyOf/oneOf that is not null, merged with allOf parts. */
function resolve(schema: unknown, root: JsonSchema): JsonSchema {
  let s = deref(schema, root);
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants) && variants.length) {
    const pick = variants.map((v) => deref(v, root)).find((v) => v.type !== 'null') ?? deref(variants[0], root);
    const { anyOf: _a, oneOf: _o, ...rest } = s;
    s = { ...rest, ...resolve(pick, root) };
  }
  if (Array.isArray(s.allOf)) {
    const { allOf, ...rest } = s;
    s = (allOf as unknown[]).reduce<JsonSchema>((acc, part) => ({ ...acc, ...resolve(part, root) }), rest);
  }
  return s;
}

function typeOf(s: JsonSchema): string | undefined {
  if (Array.isArray(s.type)) return (s.type as string[]).find((t) => t !== 'null') ?? 'null';
  if (typeof s.type === 'string') return s.type;
  if (s.properties || s.required) return 'object';
  if (s.items) return 'array';
  if (Array.isArray(s.enum)) return typeof s.enum[0];
  return undefined;
}

function number(s: JsonSchema, hint: unknown, integer: boolean): number {
  let n =
    typeof hint === 'number' && Number.isFinite(hint)
      ? hint
      : typeof hint === 'string' && hint.trim() !== '' && Number.isFinite(Number(hint))
        ? Number(hint)
        : 0;
  const step = integer ? 1 : 0.001;
  if (typeof s.minimum === 'number') n = Math.max(n, s.minimum);
  if (typeof s.exclusiveMinimum === 'number') n = Math.max(n, s.exclusiveMinimum + step);
  if (typeof s.maximum === 'number') n = Math.min(n, s.maximum);
  if (typeof s.exclusiveMaximum === 'number') n = Math.min(n, s.exclusiveMaximum - step);
  return integer ? Math.round(n) : n;
}

function string(s: JsonSchema, hint: unknown): string {
  let text =
    typeof hint === 'string'
      ? hint
      : hint === undefined || hint === null
        ? ''
        : typeof hint === 'object'
          ? JSON.stringify(hint)
          : String(hint);
  if (s.format === 'date-time' && Number.isNaN(Date.parse(text))) text = '2025-01-01T00:00:00.000Z';
  else if ((s.format === 'uri' || s.format === 'url') && !/^[a-z]+:\/\//i.test(text)) text = 'https://example.com/';
  else if (s.format === 'email' && !text.includes('@')) text = 'scripted@example.com';
  else if (s.format === 'uuid' && !/^[0-9a-f-]{36}$/i.test(text)) text = '00000000-0000-4000-8000-000000000000';
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  if (text.length < min) text = text + 'x'.repeat(min - text.length);
  if (typeof s.maxLength === 'number' && text.length > s.maxLength) text = text.slice(0, s.maxLength);
  return text;
}

/**
 * A value valid against `schema`, taking from `hint` whatever fits: object fields by name, array
 * items, strings, numbers (clamped), enum members. With no hint it is a minimal valid instance.
 */
export function shape(schema: unknown, hint: unknown, root: JsonSchema = isObj(schema) ? schema : {}): unknown {
  const s = resolve(schema, root);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.includes(hint) ? hint : s.enum[0];
  switch (typeOf(s)) {
    case 'object': {
      const props = isObj(s.properties) ? s.properties : {};
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      const out: Record<string, unknown> = {};
      const h = isObj(hint) ? hint : {};
      for (const [key, propSchema] of Object.entries(props)) {
        if (key in h && h[key] !== undefined) out[key] = shape(propSchema, h[key], root);
        else if (required.has(key)) out[key] = shape(propSchema, undefined, root);
      }
      for (const key of required) if (!(key in out)) out[key] = key in h ? h[key] : '';
      // Free-form maps (additionalProperties: schema) keep the hint's extra entries.
      if (isObj(s.additionalProperties) && Object.keys(props).length === 0) {
        for (const [key, v] of Object.entries(h)) out[key] = shape(s.additionalProperties, v, root);
      }
      return out;
    }
    case 'array': {
      const items = Array.isArray(hint) ? hint.map((item) => shape(s.items, item, root)) : [];
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      while (items.length < min) items.push(shape(s.items, undefined, root));
      if (typeof s.maxItems === 'number') items.length = Math.min(items.length, s.maxItems);
      return items;
    }
    case 'string':
      return string(s, hint);
    case 'integer':
      return number(s, hint, true);
    case 'number':
      return number(s, hint, false);
    case 'boolean':
      return typeof hint === 'boolean' ? hint : hint === 'true';
    case 'null':
      return null;
    default:
      return hint ?? null;
  }
}

/** A JSON value that breaks the schema: every required (else every) field gets the wrong type. */
export function violate(schema: unknown): unknown {
  const root = isObj(schema) ? schema : {};
  const s = resolve(schema, root);
  if (typeOf(s) !== 'object') return { unexpected: true };
  const props = isObj(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) && s.required.length ? (s.required as string[]) : Object.keys(props);
  if (required.length === 0) return ['not', 'an', 'object'];
  const wrong = (p: unknown) => {
    const t = typeOf(resolve(p, root));
    return t === 'string'
      ? 12345
      : t === 'number' || t === 'integer'
        ? 'not a number'
        : t === 'boolean'
          ? 'maybe'
          : t === 'array'
            ? 'not an array'
            : 42;
  };
  return Object.fromEntries(required.map((key) => [key, wrong(props[key])]));
}
