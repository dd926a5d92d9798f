/**
 * Turns PARLEY_EMBEDDINGS_MODEL into vector retrieval: wraps the opened store with
 * withVectorRetrieval, calling the embeddings model on the default role's endpoint (its base URL,
 * API key and timeout) with the chat calls' retry policy. Unset: the store is returned as is.
 */
import { SCRIPTED_BASE_URL, type Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { createEmbedder } from '../llm/embeddings.ts';
import { loadPriceCatalog } from '../llm/prices.ts';
import type { KnowledgeStore } from './store.ts';
import { withVectorRetrieval, type VectorRetrievalOptions } from './vector-retrieval.ts';

/**
 * `model` must already point at the running scripted model when that is in use
 * (pointAtScriptedModel); if it does not, vectors stay off with a warning rather than failing start-up.
 */
export function withConfiguredVectors(
  store: KnowledgeStore,
  model: Config['model'],
  logger: Logger,
  options: VectorRetrievalOptions = {},
): KnowledgeStore {
  const embeddingsModel = model.embeddingsModel;
  if (!embeddingsModel) return store;
  const endpoint = model.roles.default;
  if (endpoint.baseUrl === SCRIPTED_BASE_URL) {
    logger.warn(
      'PARLEY_EMBEDDINGS_MODEL is set but the scripted model address was not given to the core: retrieval stays full-text only',
    );
    return store;
  }
  const embedder = createEmbedder(endpoint, embeddingsModel, {
    logger,
    retry: { maxRetries: model.maxRetries, baseMs: model.retryBaseMs },
    prices: loadPriceCatalog(model.pricesFile),
  });
  logger.info('vector retrieval on', { embeddingsModel, baseUrl: endpoint.baseUrl });
  return withVectorRetrieval(store, embedder, { logger, ...options });
}
