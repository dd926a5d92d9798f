import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore, SpecialistRecord } from '../../../src/knowledge/store.ts';
import { SpecialistDirectory } from '../../../src/knowledge/specialist-directory.ts';

const spec = (id: string): SpecialistRecord => ({
  id,
  name: id,
  description: `${id} things`,
  kind: 'prompt',
  domains: [],
  prompt: '',
  endpoint: '',
  modelRole: 'specialist',
  tools: [],
  sourceId: 'skills:dir-test',
  available: true,
});

let store: KnowledgeStore;
beforeAll(async () => {
  store = await openKuzuStore({ path: ':memory:' });
  await store.upsertSource({
    id: 'skills:dir-test',
    kind: 'skills',
    location: 'x',
    contentHash: 'x',
    ingestedAt: new Date().toISOString(),
    status: 'ok',
  });
  await store.upsertSpecialists([spec('a')]);
});
afterAll(async () => {
  await store.close();
});

describe('SpecialistDirectory', () => {
  it('shares one read among concurrent runs and sees registry changes after the ttl', async () => {
    let now = 0;
    const directory = new SpecialistDirectory(store, { ttlMs: 1000, now: () => now });
    const [x, y] = await Promise.all([directory.get(), directory.get()]);
    expect(x).toBe(y);
    expect([...x.keys()]).toEqual(['a']);
    await store.upsertSpecialists([spec('b')]);
    expect([...(await directory.get()).keys()]).toEqual(['a']);
    now = 1000;
    expect([...(await directory.get()).keys()].sort()).toEqual(['a', 'b']);
  });
});
