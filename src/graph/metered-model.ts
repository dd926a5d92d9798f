/**
 * meterModel: wraps the shared ModelClient for one run so that every call reserves budget first
 * (a call that would exceed it is never sent), carries the run's id, abort signal and per-request
 * model overrides, and settles the real usage afterwards. (Model-call spans come from the client itself.)
 */
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
}

function messageTexts(messages: ChatMessage[]): string[] {
  return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}

export function meterModel(inner: ModelClient, ctx: MeterContext): ModelClient {
  const prepare = <O extends ModelCallOptions>(options: O): O => ({
    ...options,
    runId: ctx.runId,
    signal: options.signal ?? ctx.signal,
    model: options.model ?? ctx.models?.[options.role],
  });

  return {
    modelFor: (role, override) => inner.modelFor(role, override ?? ctx.models?.[role]),

    async chat(options: ChatOptions): Promise<ChatResult> {
      const reservation = ctx.meter.reserveModelCall(estimateTokens(messageTexts(options.messages)));
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
      const reservation = ctx.meter.reserveModelCall(estimateTokens(messageTexts(options.messages)));
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
          const reservation = ctx.meter.reserveModelCall(estimateTokens(messageTexts(options.messages)));
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
