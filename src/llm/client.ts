/**
 * createModelClient: the production ModelClient on the official openai SDK, for any OpenAI-compatible
 * endpoint. Per-role settings come from Config.model.roles; every call carries x-parley-role and
 * x-parley-run-id, is retried by us (the SDK's own retries are off), gets a span, and reports usage
 * and cost from the price catalog.
 */
import OpenAI from 'openai';
import type { Span } from '@opentelemetry/api';
import type { ModelSettings, RoleModelConfig } from './settings.ts';
import { SCRIPTED_BASE_URL } from './scripted-url.ts';
import { silentLogger, type Logger } from '../log.ts';
import { attributes, markFailed, startSpan, tracingOff, withSpan } from '../telemetry.ts';
import { ModelError, toModelError } from './errors.ts';
import { startAttempt, type Attempt } from './attempt.ts';
import { loadPriceCatalog, type PriceCatalog } from './prices.ts';
import { retryDelay, sleep } from './retry.ts';
import { jsonSchemaOf, repairMessage, structuredRequest, structuredText, validateStructured } from './structured.ts';
import type { Capabilities } from './capabilities.ts';
import { resolveCapabilities } from './presets.ts';
import { LearnedCapabilities, lessonFrom } from './learning.ts';
import { stripThinking } from './extract-json.ts';
import type { ChatMessage, ChatOptions, ChatResult, ModelCallOptions, ModelClient, ModelRole, ModelUsage, StreamChunk, StructuredOptions, StructuredResult, ToolCall } from './types.ts';

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type CreateParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Fetch = NonNullable<ConstructorParameters<typeof OpenAI>[0]>['fetch'];

export interface ModelClientOptions {
  logger?: Logger;
  /** fetch used by the SDK (tests, proxies). */
  fetch?: Fetch;
  /** Price catalog; default: loaded from config.pricesFile. */
  prices?: PriceCatalog;
  /** Source of jitter (tests). */
  random?: () => number;
}

/** The ModelClient plus the price catalog it costs calls with (the usage guard reserves with it). */
export interface ParleyModelClient extends ModelClient {
  readonly prices: PriceCatalog;
  /** What a role's endpoint and model can do now: preset, overrides, and what was learned at run time. */
  capabilities(role: ModelRole, model?: string): Capabilities;
  /** What run-time learning has found so far (per endpoint and model). */
  readonly learned: LearnedCapabilities;
}

/** How many parameter rejections one call may learn from before the 400 is thrown (each lesson changes something). */
const MAX_LESSONS_PER_CALL = 6;

interface Target {
  role: ModelRole;
  settings: RoleModelConfig;
  model: string;
  sdk: OpenAI;
}

function sumUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return {
    model: b.model,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
  };
}

function setUsageAttributes(span: Span, usage: ModelUsage, attempts: number): void {
  span.setAttributes(
    attributes({
      'gen_ai.response.model': usage.model,
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
      'parley.usage.cached_tokens': usage.cachedTokens,
      'parley.cost_usd': usage.costUsd,
      'parley.attempts': attempts,
    }),
  );
}

export function createModelClient(config: ModelSettings, options: ModelClientOptions = {}): ParleyModelClient {
  const logger = options.logger ?? silentLogger;
  const prices = options.prices ?? loadPriceCatalog(config.pricesFile, config.freeModels);
  const random = options.random ?? Math.random;
  const policy = { maxRetries: config.maxRetries, baseMs: config.retryBaseMs };
  for (const [role, settings] of Object.entries(config.roles)) {
    if (settings.baseUrl === SCRIPTED_BASE_URL) {
      throw new Error(`Model role "${role}" points at the scripted model, which is not started: start it and call pointAtScriptedModel(config.model, url) first.`);
    }
  }

  const learned = new LearnedCapabilities(logger);
  const sdks = new Map<string, OpenAI>();
  const sdkFor = (settings: RoleModelConfig): OpenAI => {
    const headers = settings.headers ?? {};
    const key = `${settings.baseUrl}\n${settings.apiKey}\n${JSON.stringify(headers)}`;
    let sdk = sdks.get(key);
    if (!sdk) {
      // maxRetries 0: retries are ours (backoff, jitter, Retry-After, logging), never doubled by the SDK's.
      // Extra headers (PARLEY_MODEL_HEADERS) go on every request: gateways that want a tenant or their own auth header.
      sdk = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs, fetch: options.fetch, defaultHeaders: headers });
      sdks.set(key, sdk);
    }
    return sdk;
  };

  const modelFor = (role: ModelRole, override?: string) => override ?? (config.roles[role] ?? config.roles.default).model;

  const settingsOf = (role: ModelRole) => config.roles[role] ?? config.roles.default;
  const target = (opts: ModelCallOptions): Target => {
    const settings = settingsOf(opts.role);
    return { role: opts.role, settings, model: modelFor(opts.role, opts.model), sdk: sdkFor(settings) };
  };
  /** Resolved each attempt, so what was learned a moment ago applies to the next call. */
  const capsOf = (t: Target): Capabilities => learned.apply(t.settings.baseUrl, t.model, resolveCapabilities(t.settings, t.model));
  const capabilities = (role: ModelRole, model?: string) => capsOf(target({ role, messages: [], model }));

  /** A 400 naming a parameter we sent: learn (drop or switch it) and say to try again; false when there is nothing to learn. */
  const learnFrom = (error: ModelError, sent: object, t: Target, caps: Capabilities, lessons: number): boolean => {
    if (lessons >= MAX_LESSONS_PER_CALL) return false;
    const lesson = lessonFrom(error, sent, caps);
    if (!lesson) return false;
    learned.learn(t.settings.baseUrl, t.model, lesson);
    return true;
  };

  const headersOf = (opts: ModelCallOptions): Record<string, string> => ({
    'x-parley-role': opts.role,
    ...(opts.runId ? { 'x-parley-run-id': opts.runId } : {}),
  });

  const baseParams = (t: Target, opts: ModelCallOptions, messages: ChatMessage[], caps: Capabilities) => {
    const temperature = caps.temperature ? (opts.temperature ?? t.settings.temperature) : undefined;
    const maxTokens = opts.maxTokens ?? t.settings.maxTokens;
    return {
      model: t.model,
      messages,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { [caps.maxTokensField]: maxTokens } : {}),
    };
  };

  const usageOf = (usage: OpenAI.Completions.CompletionUsage | null | undefined, model: string, requested: string): ModelUsage => {
    const inputTokens = usage?.prompt_tokens ?? 0;
    const outputTokens = usage?.completion_tokens ?? 0;
    const cachedTokens = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    // Reasoning tokens are part of completion_tokens (and priced as output); reported apart where the provider says.
    const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    const tokens = { inputTokens, outputTokens, cachedTokens };
    // No usage object means we cannot know the cost: report it as unknown rather than free.
    const costUsd = usage ? (prices.cost(model, tokens) ?? prices.cost(requested, tokens)) : null;
    return { model, ...tokens, ...(reasoningTokens ? { reasoningTokens } : {}), costUsd };
  };

  /** Waits before the next attempt, or throws the error when it is not retryable / retries are spent. */
  const backoff = async (err: ModelError, retry: number, t: Target, signal: AbortSignal | undefined) => {
    const delay = retryDelay(err, retry, policy, random);
    if (delay === undefined) {
      err.attempts = retry + 1;
      throw err;
    }
    logger.warn('model call failed, retrying', { role: t.role, model: t.model, kind: err.kind, status: err.status, retry: retry + 1, delayMs: delay });
    if (!(await sleep(delay, signal))) throw new ModelError('aborted', `The ${t.role} model call was cancelled.`, { role: t.role, model: t.model, attempts: retry + 1 });
  };

  /**
   * One completion with our retries around it (span: undefined while telemetry is off), its result
   * mapped by `map` in the same async frame (a call in flight holds one frame here, not two).
   */
  const complete = async <O extends ModelCallOptions, R>(
    t: Target,
    opts: O,
    build: (caps: Capabilities) => CreateParams,
    span: Span | undefined,
    map: (completion: Completion, usage: ModelUsage, t: Target, opts: O, caps: Capabilities) => R,
  ): Promise<R> => {
    let lessons = 0;
    for (let retry = 0; ; retry++) {
      const caps = capsOf(t);
      const params = build(caps);
      const attempt = startAttempt(opts.signal, t.settings.timeoutMs);
      let completion: Completion;
      let usage: ModelUsage;
      try {
        completion = await t.sdk.chat.completions.create(params, { signal: attempt.signal, headers: headersOf(opts), timeout: t.settings.timeoutMs, maxRetries: 0 });
        attempt.complete(); // the body is read: nothing left to abort
        usage = usageOf(completion.usage, completion.model || t.model, t.model);
        if (span) setUsageAttributes(span, usage, retry + 1);
      } catch (err) {
        const error = toModelError(err, attempt.state, { role: t.role, model: t.model });
        attempt.done(); // before the backoff wait: its timer must not outlive the attempt
        if (learnFrom(error, params, t, caps, lessons++)) {
          retry--; // a lesson is not a retry: the call goes again at once without the parameter
          continue;
        }
        await backoff(error, retry, t, opts.signal);
        continue;
      } finally {
        attempt.done();
      }
      return map(completion, usage, t, opts, caps);
    }
  };

  const spanAttrs = (t: Target, opts: ModelCallOptions, extra: Record<string, string | boolean | undefined> = {}) => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': t.model,
    'parley.model.role': t.role,
    'parley.run_id': opts.runId,
    ...extra,
  });

  const chatResult = (completion: Completion, usage: ModelUsage, t: Target): ChatResult => {
    const choice = completion.choices[0];
    const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
    logger.debug('model call', { role: t.role, model: usage.model, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd });
    // Reasoning comes in reasoning_content / reasoning fields, kept apart from the text; some servers leave <think> in the content.
    const content = choice?.message.content ?? '';
    const reasoning = choice ? reasoningOf(choice.message) : undefined;
    return { text: content.includes('<think>') ? stripThinking(content) : content, ...(reasoning ? { reasoning } : {}), toolCalls, finishReason: choice?.finish_reason ?? null, usage };
  };

  // With telemetry off the no-op span is skipped altogether: it would cost its attribute objects
  // and two async frames per call, held by every call in flight.
  const chat = (opts: ChatOptions): Promise<ChatResult> => {
    const t = target(opts);
    const build = (caps: Capabilities): CreateParams => {
      // tools=no (configured or learned): the call goes without them, so the model answers in text.
      const tools = caps.tools && opts.tools?.length ? opts.tools : undefined;
      return { ...baseParams(t, opts, opts.messages, caps), ...(tools ? { tools, ...(caps.parallelToolCalls ? { parallel_tool_calls: true } : {}) } : {}) };
    };
    if (tracingOff()) return complete(t, opts, build, undefined, chatResult);
    return withSpan(`chat ${t.model}`, spanAttrs(t, opts), (span) => complete(t, opts, build, span, chatResult));
  };

  /** A structured attempt's text (where its strategy puts the answer), and whether it is a valid value. */
  const structuredCheck = <T>(completion: Completion, usage: ModelUsage, _t: Target, opts: StructuredOptions<T>, caps: Capabilities) => {
    const message = completion.choices[0]?.message;
    const text = structuredText(caps.structured, opts.schemaName, message);
    const check = message?.refusal ? ({ ok: false, error: `a refusal (${message.refusal})` } as const) : validateStructured(text, opts.schema);
    return { text, check, usage, reasoning: message ? reasoningOf(message) : undefined };
  };

  const structured = async <T>(opts: StructuredOptions<T>): Promise<StructuredResult<T>> => {
    const t = target(opts);
    const schema = jsonSchemaOf(opts.schema);
    const ask = (messages: ChatMessage[], repair: boolean) => {
      // The strategy is read per attempt: a json_schema rejected a moment ago is asked again with the next one.
      const build = (caps: Capabilities): CreateParams => {
        const request = structuredRequest(caps.structured, opts.schemaName, schema, messages);
        return { ...baseParams(t, opts, request.messages, caps), ...request.params };
      };
      if (tracingOff()) return complete(t, opts, build, undefined, structuredCheck<T>);
      return withSpan(`chat ${t.model}`, spanAttrs(t, opts, { 'parley.schema': opts.schemaName, 'parley.repair': repair ? 'true' : undefined }), (span) =>
        complete(t, opts, build, span, structuredCheck<T>),
      );
    };

    const first = await ask(opts.messages, false);
    if (first.check.ok) return { value: first.check.value, usage: first.usage, ...(first.reasoning ? { reasoning: first.reasoning } : {}) };
    logger.warn('structured output invalid, asking once to repair', { role: t.role, model: t.model, schema: opts.schemaName, error: first.check.error.slice(0, 300) });
    const repaired = await ask([...opts.messages, { role: 'assistant', content: first.text }, { role: 'user', content: repairMessage(opts.schemaName, schema, first.check.error) }], true);
    const reasoning = [first.reasoning, repaired.reasoning].filter(Boolean).join('\n');
    if (repaired.check.ok) return { value: repaired.check.value, usage: sumUsage(first.usage, repaired.usage), ...(reasoning ? { reasoning } : {}) };
    throw new ModelError('invalid_output', `The ${t.role} model (${t.model}) did not return a valid "${opts.schemaName}" after one repair attempt: it is ${repaired.check.error}`, {
      role: t.role,
      model: t.model,
      raw: repaired.text,
      issues: repaired.check.error,
      usage: sumUsage(first.usage, repaired.usage),
    });
  };

  /**
   * A streamed completion as a plain async iterator rather than an async generator: each chunk
   * costs one promise reaction instead of a generator's await-and-yield round trips (a streamed
   * answer is hundreds of chunks). Nothing starts before the first next(). Failures before the
   * first delta are retried; once text has reached the caller a retry would repeat it, so later
   * failures are thrown.
   */
  const stream = (opts: ModelCallOptions): AsyncIterable<StreamChunk> => ({
    [Symbol.asyncIterator]: () => new ChatStream(opts),
  });

  class ChatStream implements AsyncIterator<StreamChunk> {
    readonly #opts: ModelCallOptions;
    #t: Target | undefined;
    #span: Span | undefined;
    #retry = 0;
    #attempt: Attempt | undefined;
    #chunks: AsyncIterator<ChatCompletionChunk> | undefined;
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
    readonly #onChunk = (r: IteratorResult<ChatCompletionChunk>): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> => this.#chunk(r);
    readonly #onError = (err: unknown): Promise<IteratorResult<StreamChunk>> => this.#failed(err);

    constructor(opts: ModelCallOptions) {
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
      if (!this.#t) {
        const t = (this.#t = target(this.#opts));
        this.#model = t.model;
        if (!tracingOff()) this.#span = startSpan(`chat ${t.model}`, { ...spanAttrs(t, this.#opts), 'parley.stream': true });
      }
      const t = this.#t;
      const caps = (this.#caps = capsOf(t));
      const params = { ...baseParams(t, this.#opts, this.#opts.messages, caps), stream: true as const, ...(caps.streamUsage ? { stream_options: { include_usage: true } } : {}) };
      this.#sent = params;
      const attempt = (this.#attempt = startAttempt(this.#opts.signal, t.settings.timeoutMs));
      try {
        const chunks = await t.sdk.chat.completions.create(params, { signal: attempt.signal, headers: headersOf(this.#opts), timeout: t.settings.timeoutMs, maxRetries: 0 });
        this.#chunks = chunks[Symbol.asyncIterator]();
      } catch (err) {
        return this.#failed(err);
      }
      return this.next();
    }

    #chunk(r: IteratorResult<ChatCompletionChunk>): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> {
      const attempt = this.#attempt!;
      if (r.done) {
        // The SDK ends a stream quietly when its signal aborts: say why it ended.
        if (attempt.aborted || attempt.timedOut) return this.#failed(new Error('stream interrupted'));
        const usage = usageOf(this.#rawUsage, this.#model, this.#t!.model);
        if (this.#span) setUsageAttributes(this.#span, usage, this.#retry + 1);
        attempt.complete();
        this.#finish();
        return { value: { type: 'done', text: this.#text, finishReason: this.#finishReason, usage }, done: false };
      }
      attempt.touch();
      const chunk = r.value;
      if (chunk.model) this.#model = chunk.model;
      if (chunk.usage) this.#rawUsage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice?.finish_reason) this.#finishReason = choice.finish_reason;
      const delta = choice?.delta?.content;
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

    /** An attempt failed: retried while nothing was yielded and the policy allows, else thrown. */
    async #failed(err: unknown): Promise<IteratorResult<StreamChunk>> {
      const t = this.#t!;
      const attempt = this.#attempt!;
      const error = toModelError(err, attempt.state, { role: t.role, model: t.model });
      attempt.done();
      this.#chunks = undefined;
      const learnt = !this.#yielded && learnFrom(error, this.#sent, t, this.#caps!, this.#lessons++);
      try {
        if (this.#yielded) throw error;
        if (!learnt) await backoff(error, this.#retry, t, this.#opts.signal);
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

  return { chat, structured, stream, modelFor, prices, capabilities, learned };
}

/**
 * The reasoning a message or stream delta carries beside its content: `reasoning_content`
 * (DeepSeek, vLLM) or `reasoning` (OpenRouter); neither is in the SDK's types.
 */
function reasoningOf(message: object): string | undefined {
  const m = message as { reasoning_content?: unknown; reasoning?: unknown };
  const text = typeof m.reasoning_content === 'string' ? m.reasoning_content : typeof m.reasoning === 'string' ? m.reasoning : undefined;
  return text || undefined;
}
