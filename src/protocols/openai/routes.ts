/**
 * OpenAI-compatible endpoint (docs/protocols/openai.md), so any OpenAI client can use Parley:
 *   POST /v1/chat/completions   X-Routing-Mode: passthrough | orchestration | council | auto
 *                               (default config.protocols.openaiRouting); requests with `tools` or
 *                               `response_format` always pass through to the configured model unchanged
 *   GET  /v1/models             the Parley models plus the upstream default model
 * Orchestrated answers stream as content deltas with progress in an extra `parley` field on chunks;
 * usage comes in a final chunk when stream_options.include_usage is set. The run id is returned in
 * X-Parley-Run-Id. Errors use OpenAI's shape. A client that disconnects cancels its run.
 */
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import OpenAI from 'openai';
import type { Config, RoleModelConfig } from '../../config.ts';
import {
  createPassthrough,
  type GraphEvent,
  type Passthrough,
  passthroughUsage,
  type RunEngine,
  type RunHandle,
  type RunResult,
} from '../../graph/contract.ts';
import { callerOf } from '../../http/auth.ts';
import { readJson } from '../../http/body.ts';
import { ApiError } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import {
  ChatRequestSchema,
  messageTexts,
  PARLEY_MODELS,
  routingModeOf,
  toRunRequest,
  type ChatRequest,
} from './request.ts';
import { chunk, completion, openaiError, sendError, usageChunk, type ChunkFields } from './wire.ts';
import { admit, retryAfterSeconds } from '../shared/admission.ts';

export interface OpenAIDeps {
  engine: RunEngine;
  config: Config;
  logger: Logger;
  /** The upstream for passthrough (default config.model.roles.default, which must be a real address). */
  upstream?: RoleModelConfig;
}

export function openaiRoutes(deps: OpenAIDeps): Hono {
  const app = new Hono();
  const upstream = deps.upstream ?? deps.config.model.roles.default;
  // Built now so a wiring mistake (the scripted placeholder URL) stops start-up, not a request.
  const passthrough: Passthrough = createPassthrough(upstream);

  app.onError((err, c) => {
    if (err instanceof ApiError) return sendError(c, err.status, err.message, { code: err.code, headers: err.headers });
    deps.logger.error('openai: unhandled error', {
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return sendError(c, 500, 'Internal error; see the server log.');
  });

  app.get('/v1/models', (c) => {
    const created = 0;
    const data = [
      ...Object.keys(PARLEY_MODELS).map((id) => ({ id, object: 'model' as const, created, owned_by: 'parley' })),
      { id: upstream.model, object: 'model' as const, created, owned_by: 'upstream' },
    ];
    return c.json({ object: 'list', data });
  });

  app.post('/v1/chat/completions', async (c) => {
    const parsed = ChatRequestSchema.safeParse(await readJson(c));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const param = issue.path.map(String).join('.') || null;
      return sendError(c, 400, `${param ?? 'body'}: ${issue.message}`, { param, code: 'invalid_request' });
    }
    const body = parsed.data;
    const mode = routingModeOf(c.req.header('x-routing-mode'), body, deps.config);
    if (typeof mode === 'object')
      return sendError(c, 400, mode.error, { param: 'X-Routing-Mode', code: 'invalid_routing_mode' });
    if (mode === 'passthrough') return forward(c, body);

    const built = toRunRequest(body, mode, callerOf(c), c.req.header('x-parley-thread-id'));
    if (!built.ok)
      return sendError(c, 400, `${built.param}: ${built.message}`, { param: built.param, code: 'invalid_request' });
    const handle = deps.engine.start(built.request);
    const admission = await admit(handle);
    if (!admission.admitted) {
      return sendError(c, 429, admission.error, {
        code: 'rate_limit_exceeded',
        headers: { 'Retry-After': retryAfterSeconds(admission.retryAfterMs), 'X-Parley-Run-Id': handle.id },
      });
    }
    c.header('X-Parley-Run-Id', handle.id);
    c.header('X-Routing-Mode', mode);
    const cancelOnDisconnect = () => deps.engine.cancel(handle.id, 'the OpenAI client disconnected');
    const fields: ChunkFields = { runId: handle.id, model: body.model, created: Math.floor(Date.now() / 1000) };
    if (body.stream)
      return streamRun(c, admission.events, fields, body.stream_options?.include_usage === true, cancelOnDisconnect);

    await admission.events.return?.();
    c.req.raw.signal.addEventListener('abort', cancelOnDisconnect, { once: true });
    const result = await handle.result;
    c.req.raw.signal.removeEventListener('abort', cancelOnDisconnect);
    if (result.status !== 'completed') return runError(c, handle, result);
    return c.json(completion(result, body.model, fields.created));
  });

  /**
   * Passthrough: the body as is (a Parley model name becomes the upstream default model), admitted
   * and charged by the engine like any run's call (rate limit, caller and thread budgets, prices).
   */
  const forward = async (c: Context, body: ChatRequest) => {
    const model = body.model in PARLEY_MODELS ? upstream.model : body.model;
    const asked =
      typeof body.max_completion_tokens === 'number'
        ? body.max_completion_tokens
        : typeof body.max_tokens === 'number'
          ? body.max_tokens
          : undefined;
    const call = deps.engine.admitDirectCall({
      callerId: callerOf(c).id,
      threadId: c.req.header('x-parley-thread-id') || undefined,
      model,
      texts: messageTexts(body),
      ...(asked !== undefined ? { maxTokens: asked } : {}),
    });
    if (!call.ok) {
      if (call.reason === 'unpriced')
        return sendError(c, 400, call.error, { param: 'model', code: 'model_not_priced' });
      const headers: Record<string, string> =
        call.retryAfterMs !== undefined ? { 'Retry-After': retryAfterSeconds(call.retryAfterMs) } : {};
      return sendError(c, 429, call.error, {
        code: call.error.startsWith('rate limit') ? 'rate_limit_exceeded' : 'budget_exceeded',
        headers,
      });
    }
    const request = passthrough.bounded(
      { ...body, model } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParams,
      call.maxTokens,
    );
    c.header('X-Routing-Mode', 'passthrough');
    const signal = c.req.raw.signal;
    try {
      if (!body.stream) {
        const answer = await passthrough.complete(request, signal);
        call.settle(passthroughUsage(answer.model || model, answer.usage));
        return c.json(answer);
      }
      const upstreamStream = await passthrough.stream(request, signal);
      const clientWantsUsage = body.stream_options?.include_usage === true;
      return streamSSE(c, async (s) => {
        try {
          for await (const part of upstreamStream) {
            if (part.usage) call.settle(passthroughUsage(part.model || model, part.usage));
            // The usage-only last chunk was asked for Parley's accounting; a client that did not ask does not get it.
            if (part.usage && part.choices.length === 0 && !clientWantsUsage) continue;
            await s.writeSSE({ data: JSON.stringify(part) });
          }
          await s.writeSSE({ data: '[DONE]' });
        } catch (err) {
          if (!s.aborted) await s.writeSSE({ data: JSON.stringify(upstreamErrorBody(err, deps.logger).body) });
        } finally {
          // A stream that ended without usage (or broke off) is charged what it reserved: unknown is not free.
          call.settle(undefined);
        }
      });
    } catch (err) {
      call.release();
      const { status, body: errBody } = upstreamErrorBody(err, deps.logger);
      return c.json(errBody, status);
    }
  };

  return app;
}

/** A streamed orchestrated run: role chunk, progress chunks, content deltas, stop, usage, [DONE]. */
function streamRun(
  c: Context,
  events: AsyncIterator<GraphEvent>,
  f: ChunkFields,
  includeUsage: boolean,
  onDisconnect: () => void,
): Response {
  return streamSSE(c, async (s) => {
    let ended = false;
    s.onAbort(() => {
      void events.return?.();
      if (!ended) onDisconnect();
    });
    const send = (data: object) => s.writeSSE({ data: JSON.stringify(data) });
    await send(chunk(f, { role: 'assistant', content: '' }, null, { runId: f.runId }));
    let streamedAnswer = false;
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || s.aborted) break;
        const e = next.value;
        if (e.type === 'answer.delta') {
          if (e.text) {
            streamedAnswer = true;
            await send(chunk(f, { content: e.text }));
          }
          continue;
        }
        if (e.type === 'model.thought') {
          // Where OpenAI-compatible reasoning servers put it (DeepSeek, vLLM): clients that show thinking read it.
          if (e.text) await send(chunk(f, { reasoning_content: e.text }, null, e));
          continue;
        }
        if (e.type !== 'run.finished') {
          await send(chunk(f, {}, null, e));
          continue;
        }
        ended = true;
        if (e.status !== 'completed') {
          await send(
            openaiError(
              e.error ?? `the run ended ${e.status}`,
              e.status === 'blocked' ? 'rate_limit_error' : 'server_error',
              null,
              `run_${e.status}`,
            ),
          );
          return;
        }
        if (!streamedAnswer && e.answer) await send(chunk(f, { content: e.answer }));
        await send(chunk(f, {}, 'stop', e));
        if (includeUsage) await send(usageChunk(f, e.usage));
        await s.writeSSE({ data: '[DONE]' });
        return;
      }
    } finally {
      await events.return?.();
    }
  });
}

function runError(c: Context, handle: RunHandle, result: RunResult): Response {
  c.header('X-Parley-Run-Id', handle.id);
  const message = result.error ?? `the run ended ${result.status}`;
  if (result.status === 'blocked') return sendError(c, 429, message, { code: 'budget_exceeded' });
  if (result.status === 'cancelled') return sendError(c, 503, message, { code: 'run_cancelled' });
  return sendError(c, 500, message, { code: 'run_failed' });
}

/** The upstream's own status and error body when it answered; 502 when it could not be reached. */
function upstreamErrorBody(err: unknown, logger: Logger): { status: ContentfulStatusCode; body: object } {
  if (err instanceof OpenAI.APIError && err.status) {
    const upstream = err.error as { message?: string } | undefined;
    const body =
      upstream && typeof upstream === 'object' && 'message' in upstream
        ? { error: upstream }
        : openaiError(err.message, 'upstream_error', null, null);
    return { status: err.status as ContentfulStatusCode, body };
  }
  logger.warn('openai passthrough: upstream unreachable', { error: err instanceof Error ? err.message : String(err) });
  return {
    status: 502,
    body: openaiError(
      `The upstream model endpoint could not be reached: ${err instanceof Error ? err.message : String(err)}`,
      'server_error',
      null,
      'upstream_unreachable',
    ),
  };
}
