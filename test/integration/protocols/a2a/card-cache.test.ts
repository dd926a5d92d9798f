/**
 * The agent card is cacheable (A2A 1.0 §8.6; TCK CARD-CACHE-001..003): a strong ETag from its content, a
 * short public max-age, Last-Modified, and a conditional GET (If-None-Match, or If-Modified-Since without
 * it) answered 304 with no body. Real HTTP against the real routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTER, startA2ARig, type A2ARig } from '../../../support/protocols/a2a-helpers.ts';

let rig: A2ARig;
beforeAll(async () => {
  rig = await startA2ARig();
});
afterAll(async () => {
  await rig?.close();
});

const CARD = '/.well-known/agent-card.json';
const SHAPES: Record<string, string>[] = [{}, { 'A2A-Version': '1.0' }];
const getCard = (headers: Record<string, string> = {}) => fetch(`${rig.server.url}${CARD}`, { headers });

describe('agent card caching', () => {
  it('carries a strong ETag and a short public Cache-Control max-age, for both card shapes', async () => {
    for (const headers of SHAPES) {
      const res = await getCard(headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
      const cacheControl = res.headers.get('cache-control') ?? '';
      expect(cacheControl).toMatch(/\bpublic\b/);
      const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)?.[1]);
      expect(maxAge).toBeGreaterThan(0);
      expect(maxAge).toBeLessThanOrEqual(3600);
      expect(res.headers.get('vary')).toMatch(/A2A-Version/i);
      expect(((await res.json()) as { name: string }).name).toBe('Parley');
    }
  });

  it('the ETag is the content: the same card keeps it, the v0.3 and v1.0 shapes differ', async () => {
    const legacy = (await getCard()).headers.get('etag');
    const current = (await getCard({ 'A2A-Version': '1.0' })).headers.get('etag');
    expect((await getCard()).headers.get('etag')).toBe(legacy);
    expect(current).not.toBe(legacy);
  });

  it('answers If-None-Match with 304 and no body; a stale tag gets the card', async () => {
    for (const headers of SHAPES) {
      const first = await getCard(headers);
      const tag = first.headers.get('etag')!;
      await first.arrayBuffer();
      const again = await getCard({ ...headers, 'If-None-Match': tag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect(again.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const stale = await getCard({ ...headers, 'If-None-Match': '"not-the-card"' });
      expect(stale.status).toBe(200);
      expect(((await stale.json()) as { name: string }).name).toBe('Parley');
    }
  });

  it('carries Last-Modified; If-Modified-Since at or after it is a 304, before it the card', async () => {
    for (const headers of SHAPES) {
      const first = await getCard(headers);
      const lastModified = first.headers.get('last-modified')!;
      const tag = first.headers.get('etag')!;
      await first.arrayBuffer();
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);
      expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
      const same = await getCard({ ...headers, 'If-Modified-Since': lastModified });
      expect(same.status).toBe(304);
      expect(await same.text()).toBe('');
      expect(same.headers.get('etag')).toBe(tag);
      expect(same.headers.get('last-modified')).toBe(lastModified);
      const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
      expect((await getCard({ ...headers, 'If-Modified-Since': later })).status).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      const older = await getCard({ ...headers, 'If-Modified-Since': earlier });
      expect(older.status).toBe(200);
      expect(((await older.json()) as { name: string }).name).toBe('Parley');
      // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3): a stale tag gets the card.
      const stale = await getCard({ ...headers, 'If-Modified-Since': lastModified, 'If-None-Match': '"old"' });
      expect(stale.status).toBe(200);
      await stale.arrayBuffer();
      expect((await getCard({ ...headers, 'If-Modified-Since': 'not a date' })).status).toBe(200);
    }
  });

  it('a new specialist changes the card, so the old ETag no longer matches', async () => {
    const before = await getCard({ 'A2A-Version': '1.0' });
    const tag = before.headers.get('etag')!;
    await before.arrayBuffer();
    await rig.parley.store.upsertSpecialists([
      { ...NOTER, id: 'archivist', name: 'archivist', description: 'Files things away' },
    ]);
    const after = await getCard({ 'A2A-Version': '1.0', 'If-None-Match': tag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(((await after.json()) as { skills: { id: string }[] }).skills.map((s) => s.id).sort()).toEqual([
      'archivist',
      'noter',
    ]);
  });
});
