/**
 * The rules every JSON body and message Parley accepts must meet, checked once before any handler
 * or protocol SDK sees it: strict UTF-8 without a byte order mark, nesting no deeper than a limit,
 * no lone surrogate (`"\ud800"`) in any string or key. A body that breaks one would otherwise reach a
 * run as mangled text (U+FFFD for bad bytes) or overflow the stack of a recursive walker further on
 * (the ACP SDK's connection router dies on a 10,000-deep `id`).
 */

/** Why a JSON text was refused: `syntax` (not JSON text at all) or `structure` (JSON, but not acceptable). */
export type JsonRefusal = { ok: false; kind: 'syntax' | 'structure'; message: string };
export type JsonParse = { ok: true; value: unknown } | JsonRefusal;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Decodes bytes as strict UTF-8 (no BOM, no invalid sequence), then parses them as parseJsonText does. */
export function parseJsonBytes(bytes: Uint8Array, maxDepth: number): JsonParse {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return refuse('syntax', 'The body starts with a byte order mark; send UTF-8 JSON without one.');
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return refuse('syntax', 'The body is not valid UTF-8.');
  }
  return parseJsonText(text, maxDepth);
}

/** Parses JSON text, refusing a BOM, nesting deeper than maxDepth, and lone surrogates. */
export function parseJsonText(text: string, maxDepth: number): JsonParse {
  if (text.charCodeAt(0) === 0xfeff)
    return refuse('syntax', 'The JSON text starts with a byte order mark; send it without one.');
  // Measured on the text, before parsing: a deep body is refused without building it.
  if (exceedsDepth(text, maxDepth)) return refuse('structure', `The JSON is nested deeper than ${maxDepth} levels.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return refuse('syntax', `The body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (hasLoneSurrogate(value))
    return refuse('syntax', 'The JSON holds a lone surrogate (e.g. "\\ud800"), which is not valid Unicode text.');
  return { ok: true, value };
}

const refuse = (kind: JsonRefusal['kind'], message: string): JsonRefusal => ({ ok: false, kind, message });

/** True when arrays/objects nest deeper than `limit` (brackets inside strings do not count). */
function exceedsDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

/** Walks a parsed value (its depth already bounded) for strings or keys holding an unpaired surrogate. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, v]) => LONE_SURROGATE.test(key) || hasLoneSurrogate(v));
  }
  return false;
}

/**
 * The id of a JSON-RPC request refused before it was parsed (too deep), when it leads the text the
 * way SDK clients write it (`{"jsonrpc":"2.0","id":7,...}`), so the client's pending call gets its error.
 */
export function leadingRequestId(text: string): string | number | null {
  const match =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*[,}]/.exec(
      text.slice(0, 512),
    );
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return null;
  }
}
