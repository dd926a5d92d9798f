/**
 * createEmbedder: text embeddings from any OpenAI-compatible /v1/embeddings endpoint with the openai
 * SDK. Inputs go in batches, each call retried like chat calls (our backoff, jitter and Retry-After;
 * the SDK's own retries off), with a span and the usage added to running totals.
 */
import OpenAI from 'openai';
import type { RoleModelConfig } from './settings.ts';
import { silentLogger, type Logger } from '../log.ts';
import { attributes, withSpan } from '../telemetry.ts';
import { startAttempt } from './attempt.ts';
import { ModelError, toModelError } from './errors.ts';
import type { PriceCatalog } from './prices.ts';
import { retryDelay, sleep, type RetryPolicy } from './retry.ts';

type Fetch = NonNullable<ConstructorParameters<typeof OpenAI>[0]>['fetch'];

/** The role name embeddings calls carry in x-parley-role (not a ModelRole: no chat settings apply). */
export const EMBEDDINGS_ROLE = 'embeddings';

export interface EmbedderOptions {
  logger?: Logger;
  /** Retries of one batch (PARLEY_MODEL_MAX_RETRIES / PARLEY_MODEL_RETRY_BASE_MS); default 3 from 500 ms. */
  retry?: RetryPolicy;
  /** Inputs per request (default 64). */
  batchSize?: number;
  /** Prices the tokens; without it (or for an unknown model) cost is null. */
  prices?: PriceCatalog;
  fetch?: Fetch;
  random?: () => number;
}

/** Running totals of what the embedder has spent. costUsd is null once any call had an unknown cost. */
export interface EmbeddingUsage {
  calls: number;
  inputs: number;
  inputTokens: number;
  costUsd: number | null;
}

export interface Embedder {
  readonly model: string;
  /** One unit-length vector per text, in order. Throws a ModelError when a batch fails after its retries. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  usage(): EmbeddingUsage;
}

/** Scales a vector to unit length (servers differ on whether they normalise), so cosine is a dot product. */
export function normalize(vector: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  return Array.from(vector, (x) => (norm === 0 ? 0 : x / norm));
}

export function createEmbedder(settings: RoleModelConfig, model: string, options: EmbedderOptions = {}): Embedder {
  const logger = options.logger ?? silentLogger;
  const policy = options.retry ?? { maxRetries: 3, baseMs: 500 };
  const batchSize = options.batchSize ?? 64;
  const random = options.random ?? Math.random;
  const where = { role: EMBEDDINGS_ROLE, model };
  // maxRetries 0: retries are ours, never doubled by the SDK's.
  const sdk = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRetries: 0,
    timeout: settings.timeoutMs,
    fetch: options.fetch,
  });
  const totals: EmbeddingUsage = { calls: 0, inputs: 0, inputTokens: 0, costUsd: 0 };

  const account = (inputs: number, tokens: number | undefined) => {
    totals.calls++;
    totals.inputs += inputs;
    totals.inputTokens += tokens ?? 0;
    const cost =
      tokens === undefined
        ? null
        : (options.prices?.cost(model, { inputTokens: tokens, outputTokens: 0, cachedTokens: 0 }) ?? null);
    totals.costUsd = totals.costUsd === null || cost === null ? null : totals.costUsd + cost;
  };

  const embedBatch = (batch: string[], signal: AbortSignal | undefined): Promise<number[][]> =>
    withSpan(
      `embeddings ${model}`,
      { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': model, 'parley.inputs': batch.length },
      async (span) => {
        for (let retry = 0; ; retry++) {
          const attempt = startAttempt(signal, settings.timeoutMs);
          try {
            // encoding_format float: the SDK would ask for base64, which not every compatible server speaks.
            const response = await sdk.embeddings.create(
              { model, input: batch, encoding_format: 'float' },
              {
                signal: attempt.signal,
                headers: { 'x-parley-role': EMBEDDINGS_ROLE },
                timeout: settings.timeoutMs,
                maxRetries: 0,
              },
            );
            const vectors = vectorsOf(response, batch.length);
            account(batch.length, response.usage?.prompt_tokens);
            span.setAttributes(
              attributes({ 'gen_ai.usage.input_tokens': response.usage?.prompt_tokens, 'parley.attempts': retry + 1 }),
            );
            return vectors;
          } catch (err) {
            const error = toModelError(err, attempt.state, where);
            attempt.done();
            const delay = retryDelay(error, retry, policy, random);
            if (delay === undefined) {
              error.attempts = retry + 1;
              throw error;
            }
            logger.warn('embeddings call failed, retrying', {
              model,
              kind: error.kind,
              status: error.status,
              retry: retry + 1,
              delayMs: delay,
            });
            if (!(await sleep(delay, signal)))
              throw new ModelError('aborted', 'The embeddings call was cancelled.', { ...where, attempts: retry + 1 });
          } finally {
            attempt.done();
          }
        }
      },
    );

  return {
    model,
    usage: () => ({ ...totals }),
    async embed(texts, signal) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize)
        out.push(...(await embedBatch(texts.slice(i, i + batchSize), signal)));
      logger.debug('embedded', { model, inputs: texts.length });
      return out;
    },
  };
}

/** The response's vectors in input order, unit length; anything else is the server's fault (retried). */
function vectorsOf(response: OpenAI.Embeddings.CreateEmbeddingResponse, expected: number): number[][] {
  const data = Array.isArray(response?.data) ? response.data : [];
  const byIndex = new Map(data.map((d) => [d.index, d.embedding] as const));
  const vectors: number[][] = [];
  let dimensions: number | undefined;
  for (let i = 0; i < expected; i++) {
    const v = byIndex.get(i);
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`the embeddings answer has no valid vector for input ${i}`);
    }
    if (dimensions !== undefined && v.length !== dimensions)
      throw new Error(`the embeddings answer mixes vector lengths (${dimensions} and ${v.length})`);
    dimensions = v.length;
    vectors.push(normalize(v));
  }
  return vectors;
}
