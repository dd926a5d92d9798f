/**
 * What every model call of one client shares (chat, structured, stream): the role's target (SDK,
 * model, capabilities as learned so far), the request's parameters and headers, usage and cost
 * from the price catalog, our retries with backoff, learning from a rejected parameter, and one
 * completion with all of that around it. createModelClient builds one kit per client.
 */
import OpenAI from 'openai';
import type { Span } from '@opentelemetry/api';
import type { ModelSettings, RoleModelConfig } from './settings.ts';
import type { Logger } from '../log.ts';
import { attributes } from '../telemetry.ts';
import { ModelError, toModelError } from './errors.ts';
import { startAttempt } from './attempt.ts';
import type { PriceCatalog } from './prices.ts';
import { retryDelay, sleep } from './retry.ts';
import type { Capabilities } from './capabilities.ts';
import { resolveCapabilities } from './presets.ts';
import { LearnedCapabilities, lessonFrom } from './learning.ts';
import type { ChatMessage, ModelCallOptions, ModelRole, ModelUsage } from './types.ts';

export type Completion = OpenAI.Chat.Completions.ChatCompletion;
export type CreateParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
export type Fetch = NonNullable<ConstructorParameters<typeof OpenAI>[0]>['fetch'];

/** How many parameter rejections one call may learn from before the 400 is thrown (each lesson changes something). */
const MAX_LESSONS_PER_CALL = 6;

export interface Target {
  role: ModelRole;
  settings: RoleModelConfig;
  model: string;
  sdk: OpenAI;
}

export interface CallKitOptions {
  logger: Logger;
  /** fetch used by the SDK (tests, proxies). */
  fetch?: Fetch;
  prices: PriceCatalog;
  /** Source of jitter. */
  random: () => number;
}

export type CallKit = ReturnType<typeof createCallKit>;

export function setUsageAttributes(span: Span, usage: ModelUsage, attempts: number): void {
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

/**
 * The reasoning a message or stream delta carries beside its content: `reasoning_content`
 * (DeepSeek, vLLM) or `reasoning` (OpenRouter); neither is in the SDK's types.
 */
export function reasoningOf(message: object): string | undefined {
  const m = message as { reasoning_content?: unknown; reasoning?: unknown };
  const text =
    typeof m.reasoning_content === 'string'
      ? m.reasoning_content
      : typeof m.reasoning === 'string'
        ? m.reasoning
        : undefined;
  return text || undefined;
}

export function createCallKit(config: ModelSettings, options: CallKitOptions) {
  const { logger, prices, random } = options;
  const policy = { maxRetries: config.maxRetries, baseMs: config.retryBaseMs };

  const learned = new LearnedCapabilities(logger);
  const sdks = new Map<string, OpenAI>();
  const sdkFor = (settings: RoleModelConfig): OpenAI => {
    const headers = settings.headers ?? {};
    const key = `${settings.baseUrl}\n${settings.apiKey}\n${JSON.stringify(headers)}`;
    let sdk = sdks.get(key);
    if (!sdk) {
      // maxRetries 0: retries are ours (backoff, jitter, Retry-After, logging), never doubled by the SDK's.
      // Extra headers (PARLEY_MODEL_HEADERS) go on every request: gateways that want a tenant or their own auth header.
      sdk = new OpenAI({
        baseURL: settings.baseUrl,
        apiKey: settings.apiKey,
        maxRetries: 0,
        timeout: settings.timeoutMs,
        fetch: options.fetch,
        defaultHeaders: headers,
      });
      sdks.set(key, sdk);
    }
    return sdk;
  };

  const modelFor = (role: ModelRole, override?: string) =>
    override ?? (config.roles[role] ?? config.roles.default).model;

  const settingsOf = (role: ModelRole) => config.roles[role] ?? config.roles.default;
  const target = (opts: ModelCallOptions): Target => {
    const settings = settingsOf(opts.settingsRole ?? opts.role);
    return {
      role: opts.role,
      settings,
      model: modelFor(opts.settingsRole ?? opts.role, opts.model),
      sdk: sdkFor(settings),
    };
  };
  /** Resolved each attempt, so what was learned a moment ago applies to the next call. */
  const capsOf = (t: Target): Capabilities =>
    learned.apply(t.settings.baseUrl, t.model, resolveCapabilities(t.settings, t.model));
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

  const usageOf = (
    usage: OpenAI.Completions.CompletionUsage | null | undefined,
    model: string,
    requested: string,
  ): ModelUsage => {
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
    logger.warn('model call failed, retrying', {
      role: t.role,
      model: t.model,
      kind: err.kind,
      status: err.status,
      retry: retry + 1,
      delayMs: delay,
    });
    if (!(await sleep(delay, signal)))
      throw new ModelError('aborted', `The ${t.role} model call was cancelled.`, {
        role: t.role,
        model: t.model,
        attempts: retry + 1,
      });
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
        completion = await t.sdk.chat.completions.create(params, {
          signal: attempt.signal,
          headers: headersOf(opts),
          timeout: t.settings.timeoutMs,
          maxRetries: 0,
        });
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

  return {
    logger,
    learned,
    modelFor,
    target,
    capsOf,
    capabilities,
    learnFrom,
    headersOf,
    baseParams,
    usageOf,
    backoff,
    complete,
    spanAttrs,
  };
}
