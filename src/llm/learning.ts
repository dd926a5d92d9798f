/**
 * Run-time learning: when a provider answers 400 to a parameter Parley sent and names it
 * (max_tokens, temperature, response_format/json_schema, stream_options, parallel_tool_calls,
 * tools), the capability is corrected for that endpoint and model, logged once, and the call is
 * retried without it. What was learned lasts for the life of the process.
 */
import { APIError } from 'openai';
import type { Logger } from '../log.ts';
import type { Capabilities } from './capabilities.ts';
import type { ModelError } from './errors.ts';

export interface Lesson {
  /** The parameter the provider rejected. */
  param: string;
  patch: Partial<Capabilities>;
  /** What Parley does instead, for the log and `parley doctor`. */
  change: string;
}

/** The parameters of the request that was rejected (only what matters for learning). */
export interface SentParams {
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  temperature?: unknown;
  response_format?: unknown;
  stream_options?: unknown;
  parallel_tool_calls?: unknown;
  tools?: unknown;
}

const names = (text: string, word: string) => new RegExp(`(^|[^a-z_])${word}([^a-z_]|$)`, 'i').test(text);

/** What a 400 teaches, or undefined when it names nothing Parley sent and can do without. */
export function lessonFrom(error: ModelError, sent: SentParams, caps: Capabilities): Lesson | undefined {
  if (error.kind !== 'bad_request' || (error.status !== 400 && error.status !== 422)) return undefined;
  const cause = error.cause;
  const param = cause instanceof APIError && typeof cause.param === 'string' ? cause.param : '';
  const text = `${param} ${cause instanceof Error ? cause.message : ''} ${error.message}`;
  const rejected = (name: string) => param === name || names(text, name);
  if (sent.max_tokens !== undefined && rejected('max_tokens')) {
    return {
      param: 'max_tokens',
      patch: { maxTokensField: 'max_completion_tokens' },
      change: 'sending max_completion_tokens instead',
    };
  }
  if (sent.max_completion_tokens !== undefined && rejected('max_completion_tokens')) {
    return {
      param: 'max_completion_tokens',
      patch: { maxTokensField: 'max_tokens' },
      change: 'sending max_tokens instead',
    };
  }
  if (sent.temperature !== undefined && rejected('temperature')) {
    return { param: 'temperature', patch: { temperature: false }, change: 'no longer sending temperature' };
  }
  if (sent.response_format !== undefined && (rejected('response_format') || rejected('json_schema'))) {
    const structured = caps.tools ? 'tool' : 'prompt';
    return {
      param: 'response_format',
      patch: { structured },
      change: `structured output now uses the ${structured} strategy`,
    };
  }
  if (sent.stream_options !== undefined && (rejected('stream_options') || rejected('include_usage'))) {
    return {
      param: 'stream_options',
      patch: { streamUsage: false },
      change: 'streams no longer ask for usage (their cost is unknown)',
    };
  }
  if (sent.parallel_tool_calls !== undefined && rejected('parallel_tool_calls')) {
    return {
      param: 'parallel_tool_calls',
      patch: { parallelToolCalls: false },
      change: 'no longer sending parallel_tool_calls',
    };
  }
  if (
    sent.tools !== undefined &&
    (rejected('tools') || rejected('tool_choice') || /does not support (tools|function)/i.test(text))
  ) {
    const patch: Partial<Capabilities> =
      caps.structured === 'tool' ? { tools: false, structured: 'prompt' } : { tools: false };
    return {
      param: 'tools',
      patch,
      change: 'no longer offering tools (specialists answer without them; structured output uses the prompt strategy)',
    };
  }
  return undefined;
}

/** What has been learned per endpoint and model, shared by every role that uses them. */
export class LearnedCapabilities {
  readonly #patches = new Map<string, Partial<Capabilities>>();
  readonly #logged = new Set<string>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  static key(baseUrl: string, model: string): string {
    return `${baseUrl}\n${model}`;
  }

  /** The capabilities with what was learned for this endpoint and model applied. */
  apply(baseUrl: string, model: string, caps: Capabilities): Capabilities {
    const patch = this.#patches.get(LearnedCapabilities.key(baseUrl, model));
    return patch ? { ...caps, ...patch } : caps;
  }

  /** Remembers a lesson (logging it once per endpoint, model and parameter). */
  learn(baseUrl: string, model: string, lesson: Lesson): void {
    const key = LearnedCapabilities.key(baseUrl, model);
    this.#patches.set(key, { ...this.#patches.get(key), ...lesson.patch });
    const logKey = `${key}\n${lesson.param}`;
    if (this.#logged.has(logKey)) return;
    this.#logged.add(logKey);
    this.#logger.warn(`model endpoint rejected ${lesson.param}: ${lesson.change}`, {
      baseUrl,
      model,
      param: lesson.param,
    });
  }

  /** Everything learned so far (for `parley doctor`). */
  entries(): { baseUrl: string; model: string; patch: Partial<Capabilities> }[] {
    return [...this.#patches].map(([key, patch]) => {
      const [baseUrl = '', model = ''] = key.split('\n');
      return { baseUrl, model, patch };
    });
  }
}
