/**
 * A streamed completion as a plain async iterator rather than an async generator: each chunk
 * costs one promise reaction instead of a generator's await-and-yield round trips (a streamed
 * answer is hundreds of chunks). Nothing starts before the first next(). Failures before the
 * first delta are retried; once text has reached the caller a retry would repeat it, so later
 * failures are thrown.
 */
import type OpenAI from 'openai';
import type { Span } from '@opentelemetry/api';
import { markFailed, startSpan, tracingOff } from '../telemetry.ts';
import { toModelError } from './errors.ts';
import { startAttempt, type Attempt } from './attempt.ts';
import { sseChunks, type SseChunks } from './sse-chunks.ts';
import type { Capabilities } from './capabilities.ts';
import { reasoningOf, setUsageAttributes, type CallKit, type Target } from './call-kit.ts';
import type { ModelCallOptions, StreamChunk } from './types.ts';

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** The ModelClient's stream(): a fresh ChatStream per iteration. */
export function streamChat(kit: CallKit, opts: ModelCallOptions): AsyncIterable<StreamChunk> {
  return { [Symbol.asyncIterator]: () => new ChatStream(kit, opts) };
}

export class ChatStream implements AsyncIterator<StreamChunk> {
  readonly #kit: CallKit;
  readonly #opts: ModelCallOptions;
  #t: Target | undefined;
  #span: Span | undefined;
  #retry = 0;
  #attempt: Attempt | undefined;
  #chunks: SseChunks<ChatCompletionChunk> | undefined;
  #text = '';
  #finishReason: string | null = null;
  #model = '';
  #rawUsage: OpenAI.Completions.CompletionUsage | null | undefined;
  #yielded = false;
  #ended = false;
  #caps: Capabilities | undefined;
  #sent: object = {};
  #lessons = 0;
  // Bound once per stream, not per chunk.
  readonly #onChunk = (
    r: IteratorResult<ChatCompletionChunk>,
  ): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> => this.#chunk(r);
  readonly #onError = (err: unknown): Promise<IteratorResult<StreamChunk>> => this.#failed(err);

  constructor(kit: CallKit, opts: ModelCallOptions) {
    this.#kit = kit;
    this.#opts = opts;
  }

  next(): Promise<IteratorResult<StreamChunk>> {
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    if (!this.#chunks) return this.#open();
    return this.#chunks.next().then(this.#onChunk, this.#onError);
  }

  /** The consumer left early: abort the request, end the span. */
  async return(): Promise<IteratorResult<StreamChunk>> {
    if (!this.#ended) {
      const chunks = this.#chunks;
      try {
        await chunks?.return?.();
      } finally {
        this.#finish();
      }
    }
    return { value: undefined, done: true };
  }

  /** Starts an attempt (the first, or a retry before any delta) and reads its first chunk. */
  async #open(): Promise<IteratorResult<StreamChunk>> {
    const kit = this.#kit;
    if (!this.#t) {
      const t = (this.#t = kit.target(this.#opts));
      this.#model = t.model;
      if (!tracingOff())
        this.#span = startSpan(`chat ${t.model}`, { ...kit.spanAttrs(t, this.#opts), 'parley.stream': true });
    }
    const t = this.#t;
    const caps = (this.#caps = kit.capsOf(t));
    const params = {
      ...kit.baseParams(t, this.#opts, this.#opts.messages, caps),
      stream: true as const,
      ...(caps.streamUsage ? { stream_options: { include_usage: true } } : {}),
    };
    this.#sent = params;
    const attempt = (this.#attempt = startAttempt(this.#opts.signal, t.settings.timeoutMs));
    try {
      // The SDK sends the request and throws its errors; the body's chunks are read by sse-chunks.ts.
      const response = await t.sdk.chat.completions
        .create(params, {
          signal: attempt.signal,
          headers: kit.headersOf(this.#opts),
          timeout: t.settings.timeoutMs,
          maxRetries: 0,
        })
        .asResponse();
      this.#chunks = sseChunks<ChatCompletionChunk>(response);
    } catch (err) {
      return this.#failed(err);
    }
    return this.next();
  }

  #chunk(r: IteratorResult<ChatCompletionChunk>): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> {
    const attempt = this.#attempt!;
    if (r.done) {
      // The chunks end quietly when the attempt's signal aborts (as the SDK's do): say why it ended.
      if (attempt.aborted || attempt.timedOut) return this.#failed(new Error('stream interrupted'));
      const usage = this.#kit.usageOf(this.#rawUsage, this.#model, this.#t!.model);
      if (this.#span) setUsageAttributes(this.#span, usage, this.#retry + 1);
      attempt.complete();
      this.#finish();
      return { value: { type: 'done', text: this.#text, finishReason: this.#finishReason, usage }, done: false };
    }
    attempt.touch();
    const choice = this.#take(r.value);
    let delta = choice?.delta?.content;
    if (delta) {
      // The rest of a burst already read (chunks that came in one network read) joins this delta: one
      // StreamChunk, one answer.delta event, one promise instead of one each. A model streaming slowly
      // sends one chunk per read and nothing changes; a burst (a fast provider, a busy event loop) costs
      // ~1/n. Reasoning stays apart, in order.
      for (let more = this.#chunks!.nextReady(withoutReasoning); more; more = this.#chunks!.nextReady(withoutReasoning))
        delta += this.#take(more)?.delta?.content ?? '';
    }
    if (!delta) {
      const reasoning = choice?.delta ? reasoningOf(choice.delta) : undefined;
      if (reasoning) {
        this.#yielded = true; // a retry would repeat what the caller has seen
        return { value: { type: 'reasoning', text: reasoning }, done: false };
      }
      return this.#chunks!.next().then(this.#onChunk, this.#onError);
    }
    this.#text += delta;
    this.#yielded = true;
    return { value: { type: 'delta', text: delta }, done: false };
  }

  /** Keeps what a chunk says besides its text (model, usage, finish reason); its first choice. */
  #take(chunk: ChatCompletionChunk): OpenAI.Chat.Completions.ChatCompletionChunk.Choice | undefined {
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#rawUsage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice?.finish_reason) this.#finishReason = choice.finish_reason;
    return choice;
  }

  /** An attempt failed: retried while nothing was yielded and the policy allows, else thrown. */
  async #failed(err: unknown): Promise<IteratorResult<StreamChunk>> {
    const t = this.#t!;
    const attempt = this.#attempt!;
    const error = toModelError(err, attempt.state, { role: t.role, model: t.model });
    attempt.done();
    this.#chunks = undefined;
    const learnt = !this.#yielded && this.#kit.learnFrom(error, this.#sent, t, this.#caps!, this.#lessons++);
    try {
      if (this.#yielded) throw error;
      if (!learnt) await this.#kit.backoff(error, this.#retry, t, this.#opts.signal);
    } catch (thrown) {
      if (this.#span) markFailed(this.#span, thrown);
      this.#finish();
      throw thrown;
    }
    if (!learnt) this.#retry++;
    this.#text = '';
    this.#finishReason = null;
    this.#model = t.model;
    this.#rawUsage = undefined;
    return this.#open();
  }

  /** The stream is over (its done chunk handed out, or failed): later next() calls say done. */
  #finish(): void {
    this.#ended = true;
    this.#chunks = undefined;
    this.#attempt?.done();
    this.#span?.end();
  }
}

/** A chunk that can join a delta before it: anything but reasoning (streamed to the caller on its own). */
function withoutReasoning(chunk: ChatCompletionChunk): boolean {
  const delta = chunk.choices[0]?.delta;
  return !delta || !reasoningOf(delta);
}
