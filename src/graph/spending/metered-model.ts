/**
 * meterModel: wraps the shared ModelClient for one run so that every call reserves budget first
 * (a call that would exceed it is never sent), carries the run's id, abort signal and per-request
 * model overrides, and settles the real usage afterwards. (Model-call spans come from the client itself.)
 */
import type { PriceCatalog } from '../../llm/prices.ts';
import type {
  ChatMessage,
  ChatOptions,
  ChatResult,
  ModelCallOptions,
  ModelClient,
  ModelRole,
  ModelUsage,
  StreamChunk,
  StructuredOptions,
  StructuredResult,
} from '../../llm/types.ts';
import { defaultMaxOutputTokens, planCall } from './call-budget.ts';
import { estimateTokens, type ModelCallReservation, type UsageMeter } from './usage.ts';

export interface MeterContext {
  runId: string;
  signal: AbortSignal;
  meter: UsageMeter;
  models?: Partial<Record<ModelRole, string>>;
  /** Called after each settled call (the engine emits a usage event). */
  onUsage(): void;
  /** Set when the run streams reasoning: called with each call's reasoning (streamed: each piece). */
  onThought?: (role: ModelRole, text: string) => void;
  /** Prices for the cost reservation; without them only cost already spent is checked. */
  prices?: Pick<PriceCatalog, 'cost'>;
  /** The configured max output of a role (undefined: defaultMaxOutputTokens, call-budget.ts). */
  maxOutputTokens?: (role: ModelRole) => number | undefined;
}

function messageTexts(messages: ChatMessage[]): string[] {
  return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}

/** The run's model client: one object per run, wrapping the shared one. */
class MeteredModel implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly ctx: MeterContext,
  ) {}

  modelFor(role: ModelRole, override?: string): string {
    return this.inner.modelFor(role, override ?? this.ctx.models?.[role]);
  }

  chat(options: ChatOptions): Promise<ChatResult> {
    return this.metered(options, this.inner.chat);
  }

  structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>> {
    return this.metered(options, this.inner.structured as (o: StructuredOptions<T>) => Promise<StructuredResult<T>>);
  }

  /** Reserve, call, settle the real usage; the reservation is released whatever happens. Failures (a refused reservation too) reject. */
  private async metered<O extends ModelCallOptions, R extends { usage: ModelUsage }>(
    options: O,
    call: (options: O) => Promise<R>,
  ): Promise<R> {
    const { reservation, maxTokens } = this.reserve(options);
    try {
      const result = await call.call(this.inner, this.prepare(options, maxTokens));
      reservation.settle(result.usage);
      this.ctx.onUsage();
      const reasoning = (result as { reasoning?: string }).reasoning;
      if (reasoning && this.ctx.onThought) this.ctx.onThought(options.role, reasoning);
      return result;
    } finally {
      reservation.release();
    }
  }

  stream(options: ModelCallOptions): AsyncIterable<StreamChunk> {
    return { [Symbol.asyncIterator]: () => new MeteredStream(this, options) };
  }

  /** @internal MeteredStream's start: reserves the call and opens the inner stream. */
  openStream(options: ModelCallOptions): { reservation: ModelCallReservation; chunks: AsyncIterator<StreamChunk> } {
    const { reservation, maxTokens } = this.reserve(options);
    try {
      return { reservation, chunks: this.inner.stream(this.prepare(options, maxTokens))[Symbol.asyncIterator]() };
    } catch (err) {
      reservation.release();
      throw err;
    }
  }

  /** @internal a streamed call's chunk arrived: its reasoning goes out as a thought, its usage is settled. */
  settled(reservation: ModelCallReservation, chunk: StreamChunk, role: ModelRole): void {
    if (chunk.type === 'reasoning') this.ctx.onThought?.(role, chunk.text);
    if (chunk.type !== 'done') return;
    reservation.settle(chunk.usage);
    this.ctx.onUsage();
  }

  /**
   * Reserves the call: input tokens estimated from the prompt plus its maximum output (the
   * request's or role's max tokens, capped by what the budgets have left), and the cost of both.
   * The call is sent with that max, so it cannot spend more than it reserved.
   */
  private reserve(options: ModelCallOptions): { reservation: ModelCallReservation; maxTokens: number } {
    const model = this.inner.modelFor(options.settingsRole ?? options.role, this.modelOverride(options));
    const plan = planCall({
      model,
      inputTokens: estimateTokens(messageTexts(options.messages)),
      maxOutputTokens:
        options.maxTokens ?? this.ctx.maxOutputTokens?.(options.role) ?? defaultMaxOutputTokens(options.role),
      headroom: this.ctx.meter.headroom(),
      prices: this.ctx.prices,
    });
    return { reservation: this.ctx.meter.reserveModelCall(plan.tokens, plan.costUsd), maxTokens: plan.outputTokens };
  }

  private prepare<O extends ModelCallOptions>(options: O, maxTokens: number): O {
    return {
      ...options,
      maxTokens,
      runId: this.ctx.runId,
      signal: options.signal ?? this.ctx.signal,
      model: this.modelOverride(options),
    };
  }

  /** The call's own model, else the request's for its role (or for the role whose settings it uses). */
  private modelOverride(options: ModelCallOptions): string | undefined {
    const models = this.ctx.models;
    return (
      options.model ?? models?.[options.role] ?? (options.settingsRole ? models?.[options.settingsRole] : undefined)
    );
  }
}

/**
 * The metered stream as a plain async iterator over the inner one (not an async generator: each of
 * the hundreds of chunks of a streamed answer costs one promise reaction here, not a generator's
 * await-and-yield round trips). Reserves at the first next(); settles on the done chunk; releases
 * when the stream ends, fails or is left early.
 */
class MeteredStream implements AsyncIterator<StreamChunk> {
  #reservation: ModelCallReservation | undefined;
  #chunks: AsyncIterator<StreamChunk> | undefined;
  #ended = false;
  readonly #onChunk = (r: IteratorResult<StreamChunk>): IteratorResult<StreamChunk> => {
    if (r.done) this.#end();
    else this.model.settled(this.#reservation!, r.value, this.options.role);
    return r;
  };
  readonly #onError = (err: unknown): never => {
    this.#end();
    throw err;
  };

  constructor(
    private readonly model: MeteredModel,
    private readonly options: ModelCallOptions,
  ) {}

  next(): Promise<IteratorResult<StreamChunk>> {
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    if (!this.#chunks) {
      try {
        ({ reservation: this.#reservation, chunks: this.#chunks } = this.model.openStream(this.options));
      } catch (err) {
        this.#ended = true;
        return Promise.reject(err);
      }
    }
    return this.#chunks.next().then(this.#onChunk, this.#onError);
  }

  async return(): Promise<IteratorResult<StreamChunk>> {
    if (!this.#ended) {
      try {
        await this.#chunks?.return?.();
      } finally {
        this.#end();
      }
    }
    return { value: undefined, done: true };
  }

  #end(): void {
    this.#ended = true;
    this.#chunks = undefined;
    this.#reservation?.release();
  }
}

export function meterModel(inner: ModelClient, ctx: MeterContext): ModelClient {
  return new MeteredModel(inner, ctx);
}
