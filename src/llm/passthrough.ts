/**
 * Raw chat-completions passthrough for the OpenAI-compatible endpoint: the client's request body
 * goes to the configured model endpoint as is (the client does its own function calling or
 * structured output), through the official openai SDK. No Parley prompts or retries: the upstream's
 * answer and errors go back to the client unchanged. Budgets do apply (the adapter admits each call
 * through the engine first): the call goes out with the max output it reserved, and asks a stream
 * for its usage so the real spend can be charged.
 */
import OpenAI from 'openai';
import { SCRIPTED_BASE_URL } from './scripted-url.ts';
import type { RoleModelConfig } from './settings.ts';
import { resolveCapabilities } from './presets.ts';
import type { ModelUsage } from './types.ts';

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParams;

export interface Passthrough {
  /** The upstream model used when the client names a Parley model. */
  readonly model: string;
  /**
   * The body with its max output set to `maxTokens` (in the field the client used, else the one the
   * upstream expects) and, for a stream, usage requested in the last chunk.
   */
  bounded(body: Body, maxTokens: number): Body;
  complete(body: Body, signal?: AbortSignal): Promise<OpenAI.Chat.Completions.ChatCompletion>;
  stream(body: Body, signal?: AbortSignal): Promise<AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>>;
}

export function createPassthrough(settings: RoleModelConfig): Passthrough {
  if (settings.baseUrl === SCRIPTED_BASE_URL) {
    throw new Error(
      'The passthrough points at the scripted model, which is not started: pass the model config after pointAtScriptedModel().',
    );
  }
  const sdk = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRetries: 0,
    timeout: settings.timeoutMs,
    defaultHeaders: settings.headers,
  });
  return {
    model: settings.model,
    bounded: (body, maxTokens) => {
      const field =
        'max_completion_tokens' in body && body.max_completion_tokens != null
          ? 'max_completion_tokens'
          : 'max_tokens' in body && body.max_tokens != null
            ? 'max_tokens'
            : resolveCapabilities(settings, body.model || settings.model).maxTokensField;
      const streamOptions = body.stream ? { stream_options: { ...body.stream_options, include_usage: true } } : {};
      return { ...body, [field]: maxTokens, ...streamOptions } as Body;
    },
    complete: (body, signal) => sdk.chat.completions.create({ ...body, stream: false }, { signal }),
    stream: (body, signal) => sdk.chat.completions.create({ ...body, stream: true }, { signal }),
  };
}

/** The usage object of a completion or of a stream's last chunk, as Parley counts it. */
export function passthroughUsage(
  model: string,
  usage: OpenAI.Completions.CompletionUsage | null | undefined,
): Pick<ModelUsage, 'model' | 'inputTokens' | 'outputTokens' | 'cachedTokens'> | undefined {
  if (!usage) return undefined;
  return {
    model,
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}
