/**
 * The OpenAI wire shape of a chat completion, shared by the scripted model and the relay model
 * (src/relay-model/): reading the request body, OpenAI-shaped errors, usage counted with tokens.ts,
 * and the answer as one JSON body or as `chat.completion.chunk` SSE messages.
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { CompletionRequest } from './answer.ts';
import { contentText, type ScriptedMessage } from './context.ts';
import { countTokens, pieces } from './tokens.ts';
import { embeddingDimensions, embeddingInputs, type EmbeddingsRequest } from './embeddings.ts';

export type OpenAIErrorStatus = 400 | 403 | 404 | 429 | 500 | 504;

export const openaiError = (c: Context, status: OpenAIErrorStatus, message: string, type: string) =>
  c.json({ error: { message, type, param: null, code: null } }, status);

/** Resolves after ms, or early when the signal aborts; returns false when aborted. */
export function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The parsed body of POST /v1/chat/completions, or the 400 that says what is wrong with it. */
export async function readCompletionRequest(c: Context): Promise<CompletionRequest | Response> {
  let body: CompletionRequest;
  try {
    body = (await c.req.json()) as CompletionRequest;
  } catch {
    return openaiError(c, 400, 'The request body is not valid JSON.', 'invalid_request_error');
  }
  if (!body || !Array.isArray(body.messages) || body.messages.length === 0) {
    return openaiError(c, 400, '`messages` must be a non-empty array.', 'invalid_request_error');
  }
  return body;
}

export interface EmbeddingsCall {
  body: EmbeddingsRequest;
  inputs: string[];
  dimensions: number;
}

/** The parsed body of POST /v1/embeddings with its inputs and dimensions, or the 400 that says what is wrong. */
export async function readEmbeddingsRequest(c: Context): Promise<EmbeddingsCall | Response> {
  let body: EmbeddingsRequest;
  try {
    body = (await c.req.json()) as EmbeddingsRequest;
  } catch {
    return openaiError(c, 400, 'The request body is not valid JSON.', 'invalid_request_error');
  }
  const inputs = body && typeof body === 'object' ? embeddingInputs(body) : '`input` is required.';
  if (typeof inputs === 'string') return openaiError(c, 400, inputs, 'invalid_request_error');
  const dimensions = embeddingDimensions(body);
  if (typeof dimensions === 'string') return openaiError(c, 400, dimensions, 'invalid_request_error');
  return { body, inputs, dimensions };
}

export interface ReplyToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON text, as OpenAI sends them. */
  arguments: string;
}

/** What the assistant says, before it is encoded. */
export interface ReplyAnswer {
  content: string | null;
  toolCalls: ReplyToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length';
}

/** Input tokens of a request: its messages' text, counted as tokens.ts counts. */
export const promptTokensOf = (messages: ScriptedMessage[]): number =>
  countTokens(messages.map((m) => contentText(m.content)).join('\n'));

/** Output tokens of an answer: its text plus each tool call's name and arguments. */
export const outputTokensOf = (answer: Pick<ReplyAnswer, 'content' | 'toolCalls'>): number =>
  countTokens(answer.content ?? '') + answer.toolCalls.reduce((n, t) => n + countTokens(t.name + t.arguments), 0);

export function usageOf(promptTokens: number, completionTokens: number, reasoningTokens = 0) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

export interface Reply {
  id: string;
  model: string;
  answer: ReplyAnswer;
  usage: ReturnType<typeof usageOf>;
  /** Reasoning sent beside the answer (reasoning_content and reasoning), when the model "thinks". */
  reasoning?: string;
}

const created = () => Math.floor(Date.now() / 1000);

const toolCallsJson = (calls: ReplyToolCall[]) =>
  calls.map((t) => ({ id: t.id, type: 'function' as const, function: { name: t.name, arguments: t.arguments } }));

/** The non-streamed `chat.completion` body. */
export function completionBody(reply: Reply): object {
  const { answer, reasoning } = reply;
  const calls = toolCallsJson(answer.toolCalls);
  return {
    id: reply.id,
    object: 'chat.completion',
    created: created(),
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.content,
          refusal: null,
          ...(reasoning ? { reasoning_content: reasoning, reasoning } : {}),
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: reply.usage,
  };
}

export interface StreamOptions {
  /** Send the usage chunk at the end (the request's stream_options.include_usage, unless a profile drops it). */
  includeUsage: boolean;
  /** Called before each content piece is sent (pacing); false stops the stream (the client went away). */
  pace?: (piece: string) => Promise<boolean>;
  /** Called once the last message ([DONE]) is written. */
  onDone?: () => void;
}

/** The answer as `chat.completion.chunk` SSE messages: role, reasoning, content pieces, tool calls, finish, usage, [DONE]. */
export function streamCompletion(c: Context, reply: Reply, options: StreamOptions): Response {
  return streamSSE(c, (stream) => writeCompletionChunks(stream, reply, options));
}

/** Writes the answer's chunks into an SSE stream already open (the relay opens it early to keep a long wait alive). */
export async function writeCompletionChunks(
  stream: SSEStreamingApi,
  reply: Reply,
  options: StreamOptions,
): Promise<void> {
  const { answer, reasoning } = reply;
  const at = created();
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: at,
    model: reply.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const send = (data: object) => stream.writeSSE({ data: JSON.stringify(data) });
  await send(chunk({ role: 'assistant', content: '' }));
  if (reasoning)
    for (const piece of pieces(reasoning))
      await send(chunk({ content: null, reasoning_content: piece, reasoning: piece }));
  for (const piece of pieces(answer.content ?? '')) {
    if (options.pace && !(await options.pace(piece))) return;
    await send(chunk({ content: piece }));
  }
  for (const [index, t] of toolCallsJson(answer.toolCalls).entries())
    await send(chunk({ tool_calls: [{ index, ...t }] }));
  await send(chunk({}, answer.finishReason));
  if (options.includeUsage)
    await send({
      id: reply.id,
      object: 'chat.completion.chunk',
      created: at,
      model: reply.model,
      choices: [],
      usage: reply.usage,
    });
  await stream.writeSSE({ data: '[DONE]' });
  options.onDone?.();
}
