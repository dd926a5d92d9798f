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

/** The run's model client: one object per run, its methods on the prototype (no closures per run). */
class MeteredModel implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly ctx: MeterContext,
  ) {}

  modelFor(role: ModelRole, override?: string): string {
    return this.inner.modelFor(role, override ?? this.ctx.models?.[role]);
  }

  async chat(options: ChatOptions): Promise<ChatResult> {
    const reservation = this.reserve(options);
    try {
      const result = await this.inner.chat(this.prepare(options));
      reservation.settle(result.usage);
      this.ctx.onUsage();
      return result;
    } finally {
      reservation.release();
    }
  }

  async structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>> {
    const reservation = this.reserve(options);
    try {
      const result = await this.inner.structured(this.prepare(options));
      reservation.settle(result.usage);
      this.ctx.onUsage();
      return result;
    } finally {
      reservation.release();
    }
  }

  stream(options: ModelCallOptions): AsyncIterable<StreamChunk> {
    return { [Symbol.asyncIterator]: () => this.streamChunks(options) };
  }

  private async *streamChunks(options: ModelCallOptions): AsyncGenerator<StreamChunk> {
    const reservation = this.reserve(options);
    try {
      for await (const chunk of this.inner.stream(this.prepare(options))) {
        if (chunk.type === 'done') {
          reservation.settle(chunk.usage);
          this.ctx.onUsage();
        }
        yield chunk;
      }
    } finally {
      reservation.release();
    }
  }

  /** Reserves the call: input tokens estimated from the prompt, cost from them plus maxTokens of output. */
  private reserve(options: ModelCallOptions) {
    const tokens = estimateTokens(messageTexts(options.messages));
    const model = this.inner.modelFor(options.role, options.model ?? this.ctx.models?.[options.role]);
    const cost = this.ctx.prices ? this.ctx.prices.cost(model, { inputTokens: tokens, outputTokens: options.maxTokens ?? 0, cachedTokens: 0 }) : 0;
    return this.ctx.meter.reserveModelCall(tokens, cost);
  }

  private prepare<O extends ModelCallOptions>(options: O): O {
    return { ...options, runId: this.ctx.runId, signal: options.signal ?? this.ctx.signal, model: options.model ?? this.ctx.models?.[options.role] };
  }
}

export function meterModel(inner: ModelClient, ctx: MeterContext): ModelClient {
  return new MeteredModel(inner, ctx);
}
