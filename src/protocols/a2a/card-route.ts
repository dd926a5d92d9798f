/**
 * GET /.well-known/agent-card.json: the card in the requested shape (v1.0 with `A2A-Version: 1.0`, else
 * v0.3), cacheable (A2A 1.0 §8.6): a strong ETag (a SHA-1 of the body as sent, so it changes exactly when
 * the card does), `Last-Modified` (when this process first served that body), `Cache-Control` and
 * `Vary: A2A-Version`; `If-None-Match` (checked by hono/etag) or, without it, `If-Modified-Since` get 304.
 * With a signing key the v1.0 card carries a JWS (card-signer.ts); one signature per distinct card, so
 * its ETag stays put between requests (ECDSA signatures differ each time they are made).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import type { Logger } from '../../log.ts';
import { legacyCard } from './card.ts';
import type { CardSigner } from './card-signer.ts';

/**
 * How long a client may reuse the card without asking again. Short: the skills follow the registry.
 * After that a conditional GET costs a 304 when nothing changed.
 */
export const CARD_MAX_AGE_SECONDS = 300;

/** Card variants (shape × public URL) whose last body is remembered; the least recently served goes first. */
const MAX_VARIANTS = 32;

interface Served {
  /** SHA-1 of the unsigned card, to know whether it changed. */
  digest: string;
  body: string;
  etag: string;
  /** Whole seconds, as HTTP dates carry. */
  lastModified: Date;
}

export interface CardRouteOptions {
  /** The card as the request's origin sees it (interfaces at that URL, current skills). */
  view(base: string): Promise<AgentCard>;
  publicUrl?: string | (() => string);
  signer?: CardSigner;
  logger: Logger;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * If-Modified-Since is honoured only without If-None-Match (RFC 9110 §13.1.3), to the second, and not
 * while Last-Modified is still ahead of the clock (a change bumped it: see bodyOf).
 */
function notModifiedSince(c: Context, lastModified: Date): boolean {
  if (c.req.header('if-none-match') !== undefined || lastModified.getTime() > Date.now()) return false;
  const since = Date.parse(c.req.header('if-modified-since') ?? '');
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}

export function cardRoute(options: CardRouteOptions): (c: Context) => Promise<Response> {
  const served = new Map<string, Served>();

  const bodyOf = async (shape: string, base: string): Promise<Served> => {
    const view = await options.view(base);
    // The v0.3 shape is not signed: a signature covers the v1.0 card's canonical form (§8.4.1).
    const unsigned = shape === '0.3' ? await legacyCard(view) : AgentCard.toJSON(view);
    const digest = sha1(JSON.stringify(unsigned));
    const key = `${shape} ${base}`;
    const known = served.get(key);
    served.delete(key);
    if (known?.digest === digest) {
      served.set(key, known);
      return known;
    }
    const json = options.signer && shape !== '0.3' ? AgentCard.toJSON(await options.signer.sign(view, base)) : unsigned;
    const body = JSON.stringify(json);
    // HTTP dates have whole seconds: a card changed within the second it was last served gets the next
    // one, so If-Modified-Since with the old date never hides the change.
    const second = Math.floor(Date.now() / 1000) * 1000;
    const previous = known?.lastModified.getTime() ?? 0;
    const lastModified = new Date(second > previous ? second : previous + 1000);
    const entry = { digest, body, etag: `"${sha1(body)}"`, lastModified };
    served.set(key, entry);
    if (served.size > MAX_VARIANTS) served.delete(served.keys().next().value!);
    return entry;
  };

  return async (c) => {
    try {
      const base =
        typeof options.publicUrl === 'function'
          ? options.publicUrl()
          : (options.publicUrl ?? new URL(c.req.url).origin);
      const shape = c.req.header(A2A_VERSION_HEADER) || '0.3';
      const card = await bodyOf(shape === '0.3' ? '0.3' : '1.0', base);
      c.header('Vary', A2A_VERSION_HEADER);
      c.header('Cache-Control', `public, max-age=${CARD_MAX_AGE_SECONDS}`);
      // Set here, so hono/etag compares it with If-None-Match instead of hashing the body again.
      c.header('ETag', card.etag);
      c.header('Last-Modified', card.lastModified.toUTCString());
      if (notModifiedSince(c, card.lastModified)) return c.body(null, 304);
      return c.body(card.body, 200, { 'Content-Type': 'application/json' });
    } catch (err) {
      options.logger.error('a2a: agent card failed', { error: (err as Error).message });
      return c.json({ error: 'Failed to retrieve agent card' }, 500);
    }
  };
}
