/**
 * Raw chat-completions passthrough for the OpenAI-compatible endpoint: the client's request body
 * goes to the configured model endpoint as is (the client does its own function calling or
 * structured output), through the official openai SDK. No Parley prompts, retries or budgets: the
 * upstream's answer and errors go back to the client unchanged.
 */
import OpenAI from 'openai';
import { SCRIPTED_BASE_URL, type RoleModelConfig } from '../config.ts';

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParams;

export interface Passthrough {
  /** The upstream model used when the client names a Parley model. */
  readonly model: string;
  complete(body: Body, signal?: AbortSignal): Promise<OpenAI.Chat.Completions.ChatCompletion>;
  stream(body: Body, signal?: AbortSignal): Promise<AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>>;
}

export function createPassthrough(settings: RoleModelConfig): Passthrough {
  if (settings.baseUrl === SCRIPTED_BASE_URL) {
    throw new Error('The passthrough points at the scripted model, which is not started: pass the model config after pointAtScriptedModel().');
  }
  const sdk = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs });
  return {
    model: settings.model,
    complete: (body, signal) => sdk.chat.completions.create({ ...body, stream: false }, { signal }),
    stream: (body, signal) => sdk.chat.completions.create({ ...body, stream: true }, { signal }),
  };
}
