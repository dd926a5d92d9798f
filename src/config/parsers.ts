/**
 * The parsers the settings share (zod schemas over the environment's strings). A parser's messages
 * are what a wrong value's error says is allowed, so each says it in the user's words.
 */
import { z } from 'zod';
import { STRUCTURED_STRATEGIES } from '../llm/capabilities.ts';
import { PRESET_IDS } from '../llm/presets.ts';

export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().nonnegative();
export const positiveNumber = z.coerce.number().positive();
export const temperature = z.coerce.number().min(0).max(2);
export const unitInterval = z.coerce.number().min(0).max(1);
export const port = z.coerce.number().int().min(0).max(65535);
export const text = z.string().min(1);
export const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);
export const url = z.url({ protocol: /^https?$/ });
/** Host names as they appear in a Host header without the port: example.com, 10.0.0.5, [fe80::1]. */
export const hostList = list.pipe(
  z.array(
    z
      .string()
      .regex(/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/i, 'host names without scheme, port or path (e.g. parley.example.com)')
      .transform((h) => h.toLowerCase()),
  ),
);
/** Browser origins: scheme://host[:port], nothing after it ("*" is not allowed: list the frontends). */
export const originList = list.pipe(
  z.array(
    z
      .string()
      .refine(
        (o) =>
          URL.canParse(o) &&
          /^https?:$/.test(new URL(o).protocol) &&
          new URL(o).origin === o.replace(/\/$/, '').toLowerCase(),
        'origins like https://app.example.com (scheme://host[:port], no path, no "*")',
      )
      .transform((o) => new URL(o).origin),
  ),
);
export const provider = z.enum(['auto', ...PRESET_IDS] as [string, ...string[]]);
export const structured = z.enum(STRUCTURED_STRATEGIES);
/** Extra request headers: a JSON object of header name to string value. */
export const headers = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a JSON object such as {"X-Tenant":"acme"}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'header names are HTTP tokens'),
      z.string().regex(/^[^\r\n\0]*$/, 'header values have no line breaks'),
    ),
  );
/**
 * An IANA time zone name the runtime knows (Intl throws a RangeError for any other). UTC, the
 * default, is known to every runtime and not checked: building a formatter loads ICU's time zone
 * data, ~6 MB resident that an idle server does not need (docs/performance.md, Startup and footprint).
 */
export const timeZone = z.string().refine((name) => {
  if (name === 'UTC') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}, 'an IANA time zone name such as UTC, Europe/Paris or America/New_York');
