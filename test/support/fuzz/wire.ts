import { randomUUID } from 'node:crypto';

/**
 * Generated requests as plain, printable data, and how they become bytes on the wire.
 *
 * Bodies may hold two stand-ins, expanded only when sent, so a shrunk counterexample stays
 * readable: `{ $deep: n }` (n levels of nested arrays or objects) and `{ $huge: n, unit }` (a string
 * of n units). Placeholders such as `<key>` and `<mcp-session>` stand for values only known at run
 * time (the API key, the ids of the sessions the harness opened) and are filled in by `resolve`.
 */

/** How a text body is turned into bytes; everything but utf8 is a deliberate encoding error. */
export type Encoding = 'utf8' | 'bom' | 'wtf8' | 'latin1';

export interface Deep {
  $deep: number;
  shape: 'array' | 'object';
}

export interface Huge {
  $huge: number;
  unit: string;
}

export type Body = { json: unknown; encoding: Encoding } | { text: string; encoding: Encoding };

/** A WebSocket frame: JSON (with stand-ins), raw text, or n random binary bytes. */
export type Frame = { json: unknown } | { raw: string } | { binary: number };

export interface FuzzRequest {
  /** The endpoint table row this request was made for. */
  endpoint: string;
  method: string;
  /** Path and query, already percent-encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Body;
  /** WebSocket rows: the frames sent after the upgrade. */
  frames?: Frame[];
  /** Why the request is invalid (the generator's label); part of a failure's signature. */
  why: string;
}

/** Runtime values the placeholders stand for. */
export type Placeholders = Record<string, string>;

const isDeep = (v: unknown): v is Deep => typeof v === 'object' && v !== null && '$deep' in v && 'shape' in v;
const isHuge = (v: unknown): v is Huge => typeof v === 'object' && v !== null && '$huge' in v && 'unit' in v;

/** Replaces `<name>` placeholders in a string; `<fresh-id>` is a new UUID each time (ids a request must not reuse). */
export function resolve(text: string, values: Placeholders): string {
  return text.replace(/<([a-z-]+)>/g, (whole, name: string) =>
    name === 'fresh-id' ? randomUUID() : (values[name] ?? whole),
  );
}

/** JSON text of a body value with its stand-ins expanded (iteratively: nesting is thousands deep). */
export function serialize(value: unknown, values: Placeholders): string {
  if (isDeep(value)) {
    const [open, close] = value.shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
    return open.repeat(value.$deep) + '0' + close.repeat(value.$deep);
  }
  if (isHuge(value)) return JSON.stringify(value.unit.repeat(Math.ceil(value.$huge / Math.max(1, value.unit.length))));
  if (typeof value === 'string') return JSON.stringify(resolve(value, values));
  if (Array.isArray(value)) return `[${value.map((v) => serialize(v, values)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${serialize(v, values)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** WTF-8: UTF-8 that also encodes lone surrogates (as the invalid bytes ED A0 80 … ED BF BF). */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      bytes.push(...Buffer.from(text.slice(i, i + 2), 'utf8'));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/** The bytes of a body. In wtf8, JSON escapes of lone surrogates become the raw (invalid) bytes. */
export function encode(body: Body, values: Placeholders): Buffer {
  const text = 'json' in body ? serialize(body.json, values) : resolve(body.text, values);
  switch (body.encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'latin1':
      return Buffer.from(text, 'latin1');
    case 'wtf8':
      return wtf8(
        text.replace(/\\u(d[89a-f][0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      );
  }
}

/** A short, printable description of a request (long strings cut), for reports. */
export function describe(request: FuzzRequest, max = 600): string {
  const text = JSON.stringify(request, (_k, v: unknown) =>
    typeof v === 'string' && v.length > 120 ? `${v.slice(0, 120)}…(${v.length} chars)` : v,
  );
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
