/**
 * The building blocks of malformed input: awkward strings (unicode edge cases, huge, lone
 * surrogates), values of the wrong type, deep nesting, and JSON-RPC envelopes. Endpoint rows
 * (endpoints.ts) compose them into near-valid bodies.
 */
import fc from 'fast-check';
import type { Deep, Huge } from './wire.ts';

/** Characters and snippets parsers and renderers trip on. None of them looks like a stack frame or a path. */
export const EDGE_SNIPPETS = [
  '\ufeff', // BOM
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\udc00\ud800', // a pair in the wrong order
  '\u0000',
  '\u202e', // right-to-left override
  '\u2028', // JSON-legal, JS-illegal line separator
  '\uffff',
  '\u{1f600}',
  'e\u0301',
  '\\',
  '"',
  '</script><script>',
  '${process}',
  '{{step.result}}',
  '%00',
  '../../etc/passwd',
  '__proto__',
  'constructor',
];

/** Lone surrogates: text no valid UTF-8 can carry. */
export const LONE_SURROGATES = ['\ud800', '\udfff', '\udc00\ud800', 'a\ud83d'];

export const edge = fc.constantFrom(...EDGE_SNIPPETS);

export const huge = (min = 10_000, max = 1_500_000): fc.Arbitrary<Huge> =>
  fc.record({ $huge: fc.integer({ min, max }), unit: fc.constantFrom('x', 'é', '\u{1f600}', '\ud800', '"\\', '{') });

export const deep: fc.Arbitrary<Deep> = fc.record({
  $deep: fc.integer({ min: 64, max: 5_000 }),
  shape: fc.constantFrom('array' as const, 'object' as const),
});

/** Any string, mostly short: printable, full unicode (lone surrogates included), edge snippets mixed in. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  {
    arbitrary: fc
      .array(fc.oneof(edge, fc.string({ maxLength: 5 })), { minLength: 1, maxLength: 6 })
      .map((a) => a.join('')),
    weight: 2,
  },
);

/** A non-empty string that is fine as free text (names, ids of things that do not exist). */
export const someText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.uuid(),
  fc.array(edge, { minLength: 1, maxLength: 3 }).map((a) => `x${a.join('')}`),
);

/** Random JSON, including deep and huge stand-ins at any position. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2),
    text,
    huge(1_000, 200_000),
    deep,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'id', 'method', 'params')), tie('value'), {
      maxKeys: 5,
    }),
  ),
})).value;

/** A value that is not a string (for a field that must be one). */
export const notString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
  deep,
);

/** A value that is not a non-empty string: empty, blank, or not a string at all. */
export const notText = fc.oneof(fc.constantFrom('', ' ', '\n\t ', '\u3000'), notString);

/** A value that is not an object (for a field that must be one). */
export const notObject = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 10 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** A value that is not an array. */
export const notArray = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 10 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
);

/** A string with a lone surrogate somewhere in it: not valid Unicode text. */
export const withLoneSurrogate = fc
  .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 10 }))
  .map(([a, s, b]) => `hi ${a}${s}${b}`);

/** A JSON-RPC id: mostly fine, sometimes not (JSON-RPC allows string, number, null). */
export const rpcId = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 1_000_000 }), weight: 4 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 2 },
  notString,
  fc.constant(undefined),
);

/** A JSON-RPC request around `method`/`params`; the envelope is broken in a minority of cases. */
export function rpc(
  method: fc.Arbitrary<unknown>,
  params: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 9 }, fc.constantFrom('1.0', 2, null, undefined)),
      id: rpcId,
      method,
      params,
    })
    .map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)));
}

/** A path segment for an id: real-looking or not, always percent-encoded. */
export const idSegment = fc
  .oneof(
    fc.uuid(),
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constantFrom('..', '.', '%2e%2e', ' ', '\u0000', 'a/b', '\ud800', 'x'.repeat(5000)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }),
  )
  .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd')));

/** A query string of junk parameters (possibly empty), percent-encoded, with a leading "?". */
export const junkQuery = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.constantFrom('limit', 'after', 'runId', 'kind', 'q', 'server', 'status'),
      ),
      text,
    ),
    { maxLength: 3 },
  )
  .map((pairs) =>
    pairs.length
      ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '\ufffd'))}`).join('&')}`
      : '',
  );
