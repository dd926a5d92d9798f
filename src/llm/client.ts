/**
 * createModelClient: the production ModelClient on the official openai SDK, for any OpenAI-compatible
 * endpoint. Per-role settings come from Config.model.roles; every call carries x-parley-role and
 * x-parley-run-id, is retried by us (the SDK's own retries are off), gets a span, and reports usage
 * and cost from the price catalog. What the calls share is call-kit.ts; structured output with its
 * repair turn is structured-call.ts; streaming is chat-stream.ts.
 */
import type { ModelSettings } from './settings.ts';
import { SCRIPTED_BASE_URL } from './scripted-url.ts';
import { silentLogger, type Logger } from '../log.ts';
import { tracingOff, withSpan } from '../telemetry.ts';
import { loadPriceCatalog, type PriceCatalog } from './prices.ts';
import type { Capabilities } from './capabilities.ts';
import type { LearnedCapabilities } from './learning.ts';
import { stripThinking } from './extract-json.ts';
import { createCallKit, reasoningOf, type Completion, type CreateParams, type Fetch, type Target } from './call-kit.ts';
import { structuredCall } from './structured-call.ts';
import { streamChat } from './chat-stream.ts';
import type {
  ChatOptions,
  ChatResult,
  ModelCallOptions,
  ModelClient,
  ModelRole,
  ModelUsage,
  StreamChunk,
  StructuredOptions,
  StructuredResult,
  ToolCall,
} from './types.ts';

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

export function createModelClient(config: ModelSettings, options: ModelClientOptions = {}): ParleyModelClient {
  const logger = options.logger ?? silentLogger;
  const prices = options.prices ?? loadPriceCatalog(config.pricesFile, config.freeModels);
  for (const [role, settings] of Object.entries(config.roles)) {
    if (settings.baseUrl === SCRIPTED_BASE_URL) {
      throw new Error(
        `Model role "${role}" points at the scripted model, which is not started: start it and call pointAtScriptedModel(config.model, url) first.`,
      );
    }
  }
  const kit = createCallKit(config, { logger, fetch: options.fetch, prices, random: options.random ?? Math.random });

  const chatResult = (completion: Completion, usage: ModelUsage, t: Target): ChatResult => {
    const choice = completion.choices[0];
    const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
    );
    logger.debug('model call', {
      role: t.role,
      model: usage.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: usage.costUsd,
    });
    // Reasoning comes in reasoning_content / reasoning fields, kept apart from the text; some servers leave <think> in the content.
    const content = choice?.message.content ?? '';
    const reasoning = choice ? reasoningOf(choice.message) : undefined;
    return {
      text: content.includes('<think>') ? stripThinking(content) : content,
      ...(reasoning ? { reasoning } : {}),
      toolCalls,
      finishReason: choice?.finish_reason ?? null,
      usage,
    };
  };

  // With telemetry off the no-op span is skipped altogether: it would cost its attribute objects
  // and two async frames per call, held by every call in flight.
  const chat = (opts: ChatOptions): Promise<ChatResult> => {
    const t = kit.target(opts);
    const build = (caps: Capabilities): CreateParams => {
      // tools=no (configured or learned): the call goes without them, so the model answers in text.
      const tools = caps.tools && opts.tools?.length ? opts.tools : undefined;
      return {
        ...kit.baseParams(t, opts, opts.messages, caps),
        ...(tools ? { tools, ...(caps.parallelToolCalls ? { parallel_tool_calls: true } : {}) } : {}),
      };
    };
    if (tracingOff()) return kit.complete(t, opts, build, undefined, chatResult);
    return withSpan(`chat ${t.model}`, kit.spanAttrs(t, opts), (span) =>
      kit.complete(t, opts, build, span, chatResult),
    );
  };

  const structured = <T>(opts: StructuredOptions<T>): Promise<StructuredResult<T>> => structuredCall(kit, opts);
  const stream = (opts: ModelCallOptions): AsyncIterable<StreamChunk> => streamChat(kit, opts);

  return {
    chat,
    structured,
    stream,
    modelFor: kit.modelFor,
    prices,
    capabilities: kit.capabilities,
    learned: kit.learned,
  };
}
