/**
 * OpenAI wire shapes Parley answers with: chat.completion, chat.completion.chunk (plus an extra
 * `parley` field carrying progress, which OpenAI SDKs ignore) and the error body
 * `{ error: { message, type, param, code } }`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GraphEvent, RunResult, UsageTotals } from '../../graph/contract.ts';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export const openaiError = (
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): OpenAIErrorBody => ({
  error: { message, type, param, code },
});

export const TYPE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'server_error',
  502: 'server_error',
  503: 'server_error',
};

export function sendError(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  options: { param?: string | null; code?: string | null; headers?: Record<string, string> } = {},
): Response {
  return c.json(
    openaiError(message, TYPE_OF_STATUS[status] ?? 'server_error', options.param ?? null, options.code ?? null),
    status,
    options.headers,
  );
}

export const usageOf = (u: UsageTotals) => ({
  prompt_tokens: u.inputTokens,
  completion_tokens: u.outputTokens,
  total_tokens: u.inputTokens + u.outputTokens,
  prompt_tokens_details: { cached_tokens: u.cachedTokens },
});

export const completionId = (runId: string) => `chatcmpl-${runId}`;

export function completion(result: RunResult, model: string, created: number) {
  return {
    id: completionId(result.runId),
    object: 'chat.completion' as const,
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: result.answer ?? '', refusal: null },
        finish_reason: 'stop' as const,
        logprobs: null,
      },
    ],
    usage: usageOf(result.usage),
    parley: {
      runId: result.runId,
      threadId: result.threadId,
      status: result.status,
      costUsd: result.usage.costUsd,
      durationMs: result.durationMs,
      // Provenance as data, as the stream's run.finished carries it (docs/events.md): the answer names no step.
      ...(result.sources ? { sources: result.sources } : {}),
      ...(result.references ? { references: result.references } : {}),
      ...(result.failedSteps ? { failedSteps: result.failedSteps } : {}),
    },
  };
}

export interface ChunkFields {
  runId: string;
  model: string;
  created: number;
}

export function chunk(
  f: ChunkFields,
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string },
  finish: 'stop' | null = null,
  parley?: GraphEvent | { runId: string },
) {
  return {
    id: completionId(f.runId),
    object: 'chat.completion.chunk' as const,
    created: f.created,
    model: f.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(parley ? { parley } : {}),
  };
}

export function usageChunk(f: ChunkFields, usage: UsageTotals) {
  return {
    id: completionId(f.runId),
    object: 'chat.completion.chunk' as const,
    created: f.created,
    model: f.model,
    choices: [],
    usage: usageOf(usage),
  };
}
