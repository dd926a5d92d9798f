/**
 * withVectorRetrieval over the real Kuzu store (in memory) with the repo's roster ingested, and the
 * scripted model's /v1/embeddings over HTTP through createEmbedder.
 */
import { specialist } from '../../support/records.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ingestAll } from '../../../src/knowledge/ingest/ingest.ts';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';
import {
  blendRelevance,
  withVectorRetrieval,
  type VectorKnowledgeStore,
  type VectorRetrievalOptions,
} from '../../../src/knowledge/vector-retrieval.ts';
import { createEmbedder } from '../../../src/llm/embeddings.ts';
import { createLogger } from '../../../src/log.ts';
import { startScriptedModel, type ScriptedModel } from '../../../src/scripted-model/index.ts';
import { REPO_SPECIALISTS_DIR } from '../../support/engine.ts';

let scripted: ScriptedModel;
let inner: KnowledgeStore;
let lines: string[];

beforeEach(async () => {
  scripted = await startScriptedModel();
  inner = await openKuzuStore({ path: ':memory:', teamMatchThreshold: 0.8, teamMinSuccessRate: 0.6 });
  lines = [];
});
afterEach(async () => {
  await inner.close();
  await scripted.close();
});

const embeddingCalls = () => scripted.requests.filter((r) => r.endpoint === 'embeddings');

function vectors(options: VectorRetrievalOptions = {}): VectorKnowledgeStore {
  const embedder = createEmbedder(
    { model: 'scripted', baseUrl: `${scripted.url}/v1`, apiKey: 'none', timeoutMs: 5000 },
    'scripted-embed',
    { retry: { maxRetries: 0, baseMs: 5 } },
  );
  return withVectorRetrieval(inner, embedder, { logger: createLogger('debug', (l) => lines.push(l)), ...options });
}

const ingestRoster = (store: KnowledgeStore) =>
  ingestAll({ store, skillsDirs: [REPO_SPECIALISTS_DIR], a2aPeers: [], logger: createLogger('silent') });

describe('retrieval with vectors', () => {
  it('finds a specialist by word parts full-text search misses ("dockerize" ~ "Dockerfiles")', async () => {
    const store = vectors();
    await ingestRoster(store);
    const query = 'dockerize the service';
    expect(await inner.retrieveSpecialists(query, 7)).toEqual([]); // no whole word in common
    const found = await store.retrieveSpecialists(query, 3);
    expect(found[0]?.specialist.id).toBe('devops');
    expect(found[0]!.relevance).toBeCloseTo(0.5, 6); // best cosine, no text part: (1 − 0.5) × 1
    expect(found.length).toBeLessThanOrEqual(3);
  });

  it('keeps text hits, blends both relevances, and ranks words-and-meaning matches first', async () => {
    const store = vectors();
    await ingestRoster(store);
    const query = 'tune a slow postgres query';
    const text = await inner.retrieveSpecialists(query, 7);
    expect(text[0]?.specialist.id).toBe('database');
    const blended = await store.retrieveSpecialists(query, 7);
    expect(blended[0]?.specialist.id).toBe('database');
    expect(blended[0]!.relevance).toBeCloseTo(1, 6); // best text hit and best cosine
    for (const c of text) expect(blended.map((b) => b.specialist.id)).toContain(c.specialist.id);
    // Scores are the registry's: relevance × (0.75 + 0.25 × quality); no record = quality 0.5.
    for (const c of blended) expect(c.score).toBeCloseTo(c.relevance * 0.875, 6);
    expect(blendRelevance(1, 0.2, 0.4, 0.5)).toBeCloseTo(0.75, 9);
  });

  it('prefers the specialist with the better record when relevance ties', async () => {
    const store = vectors();
    await inner.upsertSource({
      id: 'skills:test',
      kind: 'skills',
      location: 'test',
      contentHash: 'x',
      ingestedAt: new Date().toISOString(),
      status: 'ok',
    });
    // Same search text (name, description), so the same relevance both ways; ids sort alpha first.
    const same = { name: 'Cassandra migrator' };
    await store.upsertSpecialists([
      specialist('alpha', 'Migrates Cassandra keyspaces', same),
      specialist('omega', 'Migrates Cassandra keyspaces', same),
    ]);
    const step = (id: string, who: string) => ({
      id,
      specialist: who,
      objective: 'o',
      status: 'succeeded' as const,
      durationMs: 10,
      tokens: 1,
      costUsd: 0,
      toolCalls: [],
    });
    await inner.recordRun({
      id: 'run-1',
      threadId: 't',
      query: 'q',
      protocol: 'test',
      callerId: 'c',
      startedAt: new Date().toISOString(),
      durationMs: 10,
      status: 'completed',
      tokens: 1,
      costUsd: 0,
      score: 0.95,
      steps: [step('s1', 'omega')],
    });
    const found = await store.retrieveSpecialists('cassandra keyspace migration', 2);
    expect(found.map((c) => c.specialist.id)).toEqual(['omega', 'alpha']);
    expect(found[0]!.relevance).toBeCloseTo(found[1]!.relevance, 6);
    expect(found[0]!.proficiency?.runs).toBe(1);
  });

  it('embeds each specialist once: re-ingesting or re-upserting unchanged ones embeds nothing', async () => {
    const store = vectors();
    await ingestRoster(store);
    const atStart = embeddingCalls();
    expect(atStart.reduce((n, r) => n + (r.inputs ?? 0), 0)).toBe(10); // the shipped roster
    expect(store.vectorStatus()).toMatchObject({ indexed: 10, failing: false });

    await ingestRoster(store); // unchanged source: skipped
    const all = await inner.listSpecialists();
    const edited = all.map((s) =>
      s.id === 'writer' ? { ...s, description: s.description + ' Also translates changelogs.' } : s,
    );
    await store.upsertSpecialists(edited); // nine unchanged, one changed
    const after = embeddingCalls().slice(atStart.length);
    expect(after.map((r) => r.inputs)).toEqual([1]);
    expect(after[0]!.lastUserMessage).toContain('translates changelogs');

    scripted.requests.length = 0;
    await store.retrieveSpecialists('translate the changelog', 3);
    expect(embeddingCalls().map((r) => r.inputs)).toEqual([1]); // only the query
  });

  it('embeds what is missing on first use (a store filled before it was wrapped)', async () => {
    await ingestRoster(inner);
    const store = vectors();
    expect(embeddingCalls()).toHaveLength(0);
    expect((await store.retrieveSpecialists('dockerize the service', 1))[0]?.specialist.id).toBe('devops');
    expect(embeddingCalls().map((r) => r.inputs)).toEqual([10, 1]);
  });

  it('never returns specialists that are gone', async () => {
    const store = vectors();
    await ingestRoster(store);
    expect((await store.retrieveSpecialists('dockerize the service', 1))[0]?.specialist.id).toBe('devops');
    const ids = (await inner.listSpecialists()).map((s) => s.id).filter((id) => id !== 'devops');
    const sourceId = (await inner.getSpecialist('devops'))!.sourceId;
    await store.markGone(
      sourceId,
      ids,
      (await inner.listTools()).map((t) => t.id),
    );
    const found = await store.retrieveSpecialists('dockerize the service', 7);
    expect(found.map((c) => c.specialist.id)).not.toContain('devops');
  });
});

describe('when the embeddings endpoint fails', () => {
  it('falls back to text retrieval, logs once, pauses vectors, and uses them again after the pause', async () => {
    let clock = 1_000;
    const store = vectors({ retryAfterFailureMs: 30_000, now: () => clock });
    scripted.setFaults([{ role: 'embeddings', fault: '500', times: 100 }]);
    await ingestRoster(store); // ingestion goes on without vectors
    expect((await inner.listSpecialists()).length).toBe(10);
    expect(store.vectorStatus()).toMatchObject({ indexed: 0, failing: true });

    const query = 'tune a slow postgres query';
    const callsBefore = embeddingCalls().length;
    expect(await store.retrieveSpecialists(query, 7)).toEqual(await inner.retrieveSpecialists(query, 7));
    expect(await store.retrieveSpecialists('dockerize the service', 7)).toEqual([]); // text only: nothing
    expect(embeddingCalls().length).toBe(callsBefore); // paused: the endpoint is not asked again
    expect(lines.filter((l) => l.includes('WARN embeddings unavailable'))).toHaveLength(1);

    scripted.setFaults([]);
    clock += 30_001;
    expect((await store.retrieveSpecialists('dockerize the service', 1))[0]?.specialist.id).toBe('devops');
    expect(store.vectorStatus()).toMatchObject({ indexed: 10, failing: false });
    expect(lines.some((l) => l.includes('INFO embeddings available again'))).toBe(true);
  });

  it('falls back when the query embedding fails after the index was built', async () => {
    const store = vectors({ retryAfterFailureMs: 0 });
    await ingestRoster(store);
    scripted.setFaults([{ role: 'embeddings', fault: 'malformed', times: 1 }]);
    const query = 'write pytest tests';
    expect(await store.retrieveSpecialists(query, 5)).toEqual(await inner.retrieveSpecialists(query, 5));
    expect(store.vectorStatus().failing).toBe(true);
    expect((await store.retrieveSpecialists('dockerize the service', 1))[0]?.specialist.id).toBe('devops');
    expect(store.vectorStatus().failing).toBe(false);
  });
});
