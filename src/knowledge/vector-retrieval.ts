/**
 * withVectorRetrieval: a KnowledgeStore decorator that adds embedding similarity to specialist
 * retrieval (PARLEY_EMBEDDINGS_MODEL). Everything is delegated to the inner store except:
 * - upsertSpecialists also embeds the search text of the specialists whose text changed;
 * - retrieveSpecialists blends the inner store's full-text relevance with cosine similarity.
 * Vectors live in process memory, keyed by id and content hash, and are rebuilt at start (each
 * retrieval first embeds any available specialist not yet embedded). The embeddings endpoint is never
 * a reason for a run to fail: on an error retrieval falls back to the inner store's text ranking.
 */
import type { Logger } from '../log.ts';
import { silentLogger } from '../log.ts';
import type { Embedder, EmbeddingUsage } from '../llm/embeddings.ts';
import { combineScore, specialistSearchText } from './registry.ts';
import type { KnowledgeStore, Proficiency, SpecialistCandidate, SpecialistRecord } from './store.ts';
import { contentHash, VectorIndex } from './vector-index.ts';

export interface VectorRetrievalOptions {
  logger?: Logger;
  /** Weight of text relevance in the blend; the rest is vector similarity (default 0.5). */
  textWeight?: number;
  /** After the endpoint fails, how long retrieval stays text-only before trying it again (default 60 s). */
  retryAfterFailureMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

export interface VectorStatus {
  model: string;
  /** Specialists with a vector. */
  indexed: number;
  /** True after a failed embeddings call, until one succeeds. */
  failing: boolean;
  lastError?: string;
  usage: EmbeddingUsage;
}

export interface VectorKnowledgeStore extends KnowledgeStore {
  vectorStatus(): VectorStatus;
}

/**
 * Relevance of a candidate: textWeight × text + (1 − textWeight) × vector, where text is the inner
 * store's relevance (its text score ÷ the best text hit's; 0 when not a text hit) and vector is the
 * candidate's cosine ÷ the best cosine among available specialists (negative cosines count as 0).
 * Both parts are 0..1, so a specialist that matches in words and in meaning beats one matching in
 * only one way, and a specialist no word matches can still be found by meaning.
 */
export function blendRelevance(text: number, cosine: number, bestCosine: number, textWeight: number): number {
  const vector = bestCosine > 0 ? Math.max(0, cosine) / bestCosine : 0;
  return textWeight * text + (1 - textWeight) * vector;
}

export function withVectorRetrieval(
  inner: KnowledgeStore,
  embedder: Embedder,
  options: VectorRetrievalOptions = {},
): VectorKnowledgeStore {
  const logger = options.logger ?? silentLogger;
  const textWeight = options.textWeight ?? 0.5;
  const retryAfterFailureMs = options.retryAfterFailureMs ?? 60_000;
  const now = options.now ?? Date.now;

  const index = new VectorIndex();
  let failing = false;
  let lastError: string | undefined;
  let textOnlyUntil = 0;

  // Index work runs one at a time, so concurrent retrievals never embed the same specialist twice.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn);
    // The chain only orders calls: each caller gets its own error through `run`.
    chain = run.catch(() => undefined);
    return run;
  };

  const hashOf = (s: SpecialistRecord) => contentHash(embedder.model, specialistSearchText(s));

  const noteFailure = (err: unknown) => {
    lastError = err instanceof Error ? err.message : String(err);
    textOnlyUntil = now() + retryAfterFailureMs;
    if (!failing) {
      logger.warn('embeddings unavailable: specialist retrieval falls back to full-text only', {
        model: embedder.model,
        error: lastError,
        retryInMs: retryAfterFailureMs,
      });
    } else {
      logger.debug('embeddings still unavailable', { model: embedder.model, error: lastError });
    }
    failing = true;
  };
  const noteSuccess = () => {
    if (failing)
      logger.info('embeddings available again: specialist retrieval uses vectors', { model: embedder.model });
    failing = false;
    lastError = undefined;
  };

  /** Embeds the available specialists whose current text has no vector yet. Throws when the endpoint fails. */
  const embedMissing = (specialists: Iterable<SpecialistRecord>) =>
    serial(async () => {
      const todo = [...specialists]
        .filter((s) => s.available)
        .map((s) => ({ s, hash: hashOf(s) }))
        .filter(({ s, hash }) => !index.has(s.id, hash));
      if (todo.length === 0) return;
      const vectors = await embedder.embed(todo.map(({ s }) => specialistSearchText(s)));
      todo.forEach(({ s, hash }, i) => index.set(s.id, hash, vectors[i]!));
      logger.debug('specialists embedded', { count: todo.length, indexed: index.size });
    });

  const retrieveSpecialists = async (query: string, k: number): Promise<SpecialistCandidate[]> => {
    // Ask the text side for more than k: the blend may lift some of its lower hits into the top k.
    const textSide = inner.retrieveSpecialists(query, Math.max(k * 3, k + 10));
    if (k <= 0 || !query.trim() || now() < textOnlyUntil) return (await textSide).slice(0, Math.max(k, 0));
    textSide.catch(() => undefined); // awaited below; this only keeps an early throw from leaving it unhandled
    // Read every time (the backends answer it from memory): availability and additions made by
    // ingestion, markGone or another process are always current, and anything new gets embedded.
    const all = new Map((await inner.listSpecialists({ available: true })).map((s) => [s.id, s]));
    let queryVector: Float32Array;
    try {
      await embedMissing(all.values());
      queryVector = Float32Array.from((await embedder.embed([query]))[0]!);
      noteSuccess();
    } catch (err) {
      noteFailure(err);
      return (await textSide).slice(0, k);
    }

    const textHits = new Map((await textSide).map((c) => [c.specialist.id, c]));
    const nearest = index.nearest(queryVector, all.keys(), k);
    const bestCosine = nearest[0]?.cosine ?? 0;
    const ids = new Set([...textHits.keys(), ...nearest.map((n) => n.id)]);

    const candidates = await Promise.all(
      [...ids].map(async (id): Promise<SpecialistCandidate | undefined> => {
        const hit = textHits.get(id);
        const specialist = hit?.specialist ?? all.get(id);
        if (!specialist?.available) return undefined;
        const proficiency: Proficiency | undefined = hit
          ? hit.proficiency
          : await inner.getProficiency(id, 'specialist');
        const relevance = blendRelevance(
          hit?.relevance ?? 0,
          index.similarity(queryVector, id),
          bestCosine,
          textWeight,
        );
        return { specialist, relevance, proficiency, score: combineScore(relevance, proficiency) };
      }),
    );
    return candidates
      .filter((c): c is SpecialistCandidate => c !== undefined && c.relevance > 0)
      .sort((a, b) => b.score - a.score || a.specialist.id.localeCompare(b.specialist.id))
      .slice(0, k);
  };

  return {
    upsertSource: (source) => inner.upsertSource(source),
    getSource: (id) => inner.getSource(id),
    async upsertSpecialists(specialists) {
      await inner.upsertSpecialists(specialists);
      if (now() < textOnlyUntil) return; // the next retrieval after the pause embeds what is missing
      try {
        await embedMissing(specialists);
        noteSuccess();
      } catch (err) {
        // Ingestion goes on; the next retrieval tries again (or falls back to text).
        noteFailure(err);
      }
    },
    upsertTools: (tools) => inner.upsertTools(tools),
    markGone: (sourceId, keepSpecialistIds, keepToolIds) => inner.markGone(sourceId, keepSpecialistIds, keepToolIds),
    listSpecialists: (filter) => inner.listSpecialists(filter),
    getSpecialist: (id) => inner.getSpecialist(id),
    listTools: (server) => inner.listTools(server),
    getTool: (id) => inner.getTool(id),
    retrieveSpecialists,
    findTeamConfig: (query, scope) => inner.findTeamConfig(query, scope),
    recordRun: (run, options) => inner.recordRun(run, options),
    settleRuns: () => inner.settleRuns(),
    getRun: (id) => inner.getRun(id),
    listRuns: (options) => inner.listRuns(options),
    getProficiency: (subject, kind) => inner.getProficiency(subject, kind),
    searchMemory: (query, k, scope, options) => inner.searchMemory(query, k, scope, options),
    recordApproval: (approval) => inner.recordApproval(approval),
    listApprovals: (runId) => inner.listApprovals(runId),
    recordDecision: (decision) => inner.recordDecision(decision),
    listDecisions: (limit, scope) => inner.listDecisions(limit, scope),
    getDecision: (id) => inner.getDecision(id),
    close: () => inner.close(),
    vectorStatus: () => ({ model: embedder.model, indexed: index.size, failing, lastError, usage: embedder.usage() }),
  };
}
