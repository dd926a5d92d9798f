/**
 * meterModel: wraps the shared ModelClient for one run so that every call reserves budget first
 * (a call that would exceed it is never sent), carries the run's id, abort signal and per-request
 * model overrides, and settles the real usage afterwards. (Model-call spans come from the client itself.)
 */
import type { PriceCatalog } from '../llm/prices.ts';
import type {
  ChatMessage,
  ChatOptions,
  ChatResult,
  ModelCallOptions,
  ModelClient,
  ModelRole,
  StreamChunk,
  StructuredOptions,
  StructuredResult,
} from '../llm/types.ts';
import { estimateTokens, type UsageMeter } from './usage.ts';

export interface MeterContext {
  runId: string;
  signal: AbortSignal;
  meter: UsageMeter;
  models?: Partial<Record<ModelRole, string>>;
  /** Called after each settled call (the engine emits a usage event). */
  onUsage(): void;
  /** Prices for the cost reservation; without them only cost already spent is checked. */
  prices?: Pick<PriceCatalog, 'cost'>;
}

function messageTexts(messages: ChatMessage[]): string[] {
  return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}

export function meterModel(inner: ModelClient, ctx: MeterContext): ModelClient {
  /** Reserves the call: input tokens estimated from the prompt, cost from them plus maxTokens of output. */
  const reserve = (options: ModelCallOptions) => {
    const tokens = estimateTokens(messageTexts(options.messages));
    const model = inner.modelFor(options.role, options.model ?? ctx.models?.[options.role]);
    const cost = ctx.prices ? ctx.prices.cost(model, { inputTokens: tokens, outputTokens: options.maxTokens ?? 0, cachedTokens: 0 }) : 0;
    return ctx.meter.reserveModelCall(tokens, cost);
  };
  const prepare = <O extends ModelCallOptions>(options: O): O => ({
    ...options,
    runId: ctx.runId,
    signal: options.signal ?? ctx.signal,
    model: options.model ?? ctx.models?.[options.role],
  });

  return {
    modelFor: (role, override) => inner.modelFor(role, override ?? ctx.models?.[role]),

    async chat(options: ChatOptions): Promise<ChatResult> {
      const reservation = reserve(options);
      try {
        const result = await inner.chat(prepare(options));
        reservation.settle(result.usage);
        ctx.onUsage();
        return result;
      } finally {
        reservation.release();
      }
    },

    async structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>> {
      const reservation = reserve(options);
      try {
        const result = await inner.structured(prepare(options));
        reservation.settle(result.usage);
        ctx.onUsage();
        return result;
      } finally {
        reservation.release();
      }
    },

    stream(options: ModelCallOptions): AsyncIterable<StreamChunk> {
      return {
        async *[Symbol.asyncIterator]() {
          const reservation = reserve(options);
          try {
            for await (const chunk of inner.stream(prepare(options))) {
              if (chunk.type === 'done') {
                reservation.settle(chunk.usage);
                ctx.onUsage();
              }
              yield chunk;
            }
          } finally {
            reservation.release();
          }
        },
      };
    },
  };
}
