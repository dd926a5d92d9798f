/**
 * The relay model: an OpenAI-compatible endpoint on 127.0.0.1 that writes every chat completion
 * request into a folder (`<id>.request.json`, `<id>.request.md`) and answers it with what someone
 * writes into `<id>.answer.json` — a person, or anyone acting as the model, reads exactly what each
 * Parley role is asked and answers it (docs/models.md, "Reviewing prompts with the relay model").
 * Embeddings are answered at once with the scripted model's deterministic vectors.
 */
import { Hono, type Context } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import {
  completionBody,
  openaiError,
  outputTokensOf,
  promptTokensOf,
  readCompletionRequest,
  streamCompletion,
  usageOf,
  readEmbeddingsRequest,
  writeCompletionChunks,
  type ReplyAnswer,
} from '../scripted-model/completion-reply.ts';
import { stream, streamSSE } from 'hono/streaming';
import { embedText, toBase64 } from '../scripted-model/embeddings.ts';
import { countTokens } from '../scripted-model/tokens.ts';
import { jsonSchemaName, offeredTools, readAnswer } from './answer-file.ts';
import {
  answerName,
  firstSequence,
  requestId,
  requestJsonName,
  requestMdName,
  watchAnswer,
  writeWhole,
} from './folder.ts';
import { renderRequest } from './render.ts';
import { originPolicy } from '../http/request-origin.ts';

/** The answer file's format in one line, for the start-up banners of the relay and the review driver. */
export const ANSWER_FORMAT =
  'an answer file is {"content": "text"} ({"content": {…}} for a JSON answer) or {"tool_calls": [{"name": "<a tool as offered>", "arguments": {…}}]} (docs/models.md, "Reviewing prompts with the relay model")';

/** 30 minutes: long enough to read a planner's prompt and think. */
export const DEFAULT_RELAY_TIMEOUT_MS = 30 * 60_000;

export interface RelayModelOptions {
  /** The folder requests are written to and answers read from (created when missing). */
  dir: string;
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  host?: string;
  /** How long a request waits for its answer file before it is answered 504 (default 30 min). */
  timeoutMs?: number;
  /** How often the answer file is looked for (default 200 ms). */
  pollMs?: number;
  /**
   * How long a request waits with nothing sent (default 60 s). After it the response starts and a
   * keep-alive (a space before the JSON, an SSE comment) is sent every keepAliveMs (default 15 s),
   * so clients with an idle limit keep waiting.
   */
  holdMs?: number;
  keepAliveMs?: number;
  /** Model name reported when the request names none, and by GET /v1/models (default "relay"). */
  model?: string;
  /** Where progress lines go (default: nowhere). */
  log?: (line: string) => void;
}

export interface RelayModel {
  /** Base URL, e.g. http://127.0.0.1:41234 (the OpenAI base URL is `${url}/v1`). */
  url: string;
  /** The folder, absolute. */
  dir: string;
  close(): Promise<void>;
}

/** 1800000 → "1800 s", 300 → "0.3 s". */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** The x-parley-* headers of a request (role, run id, …): what the request file records beside the body. */
const parleyHeaders = (all: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(all).filter(([name]) => name.startsWith('x-parley-')));

function relayApp(
  options: RelayModelOptions & { dir: string; host: string },
  firstId: number,
  closing: AbortSignal,
): Hono {
  const app = new Hono();
  // As Parley's own server: on loopback only loopback Host names (DNS rebinding), and no web page's Origin.
  const verdictOf = originPolicy({ bindHost: options.host, allowedHosts: [], allowedOrigins: [] });
  app.use(async (c, next) => {
    const verdict = verdictOf(c.req.header('host'), c.req.header('origin'));
    return verdict.ok ? next() : openaiError(c, 403, verdict.message, 'invalid_request_error');
  });
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? DEFAULT_RELAY_TIMEOUT_MS;
  const pollMs = options.pollMs ?? 200;
  const holdMs = options.holdMs ?? 60_000;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const defaultModel = options.model ?? 'relay';
  let sequence = firstId;

  const completions = async (c: Context) => {
    const body = await readCompletionRequest(c);
    if (body instanceof Response) return body;
    const headers = parleyHeaders(c.req.header());
    const id = requestId(sequence++, headers['x-parley-role']);
    const model = typeof body.model === 'string' && body.model ? body.model : defaultModel;
    const answerFile = answerName(id);
    await writeWhole(join(options.dir, requestMdName(id)), renderRequest({ id, headers, body, answerFile }));
    await writeWhole(
      join(options.dir, requestJsonName(id)),
      `${JSON.stringify({ id, arrivedAt: new Date().toISOString(), headers, body }, null, 2)}\n`,
    );
    const tools = offeredTools(body);
    const schema = jsonSchemaName(body);
    const asks = [
      schema !== undefined ? `JSON "${schema}"` : 'text',
      tools.length ? `${tools.length} tools` : undefined,
      body.stream ? 'streamed' : undefined,
    ].filter(Boolean);
    log(`${id}: ${asks.join(', ')} — waiting for ${answerFile}`);

    const waitFor = watchAnswer(join(options.dir, answerFile), {
      pollMs,
      read: (text) => readAnswer(text, body, `call_${id.replace(/-.*/, '')}`),
      onInvalid: (error) => log(`${id}: ${answerFile} is invalid: ${error} — fix it and save again`),
    });
    const signal = AbortSignal.any([c.req.raw.signal, closing]);
    const deadline = Date.now() + timeoutMs;
    const timeoutMessage = `The relay model got no answer for request ${id} within ${seconds(timeoutMs)} (write ${answerFile} in the relay folder; --timeout sets the wait).`;
    const timeoutError = { error: { message: timeoutMessage, type: 'timeout', param: null, code: 'timeout' } };
    const replyOf = (answer: ReplyAnswer) => {
      const usage = usageOf(promptTokensOf(body.messages), outputTokensOf(answer));
      log(
        `${id}: answered (${answer.toolCalls.length ? `${answer.toolCalls.length} tool calls` : 'content'}; ${usage.prompt_tokens} in, ${usage.completion_tokens} out)`,
      );
      return { id: `chatcmpl-relay-${id}`, model, answer, usage };
    };
    const logEnd = (kind: 'aborted' | 'timeout') =>
      log(
        kind === 'aborted'
          ? `${id}: the client went away; no longer waiting`
          : `${id}: no answer within ${seconds(timeoutMs)}; answered with a timeout error`,
      );
    const streamOptions = { includeUsage: body.stream_options?.include_usage === true };

    const first = await waitFor(Math.min(holdMs, timeoutMs), signal);
    if (first.kind === 'aborted') return (logEnd('aborted'), c.body(null, 499 as 400));
    if (first.kind === 'timeout' && Date.now() >= deadline)
      return (logEnd('timeout'), openaiError(c, 504, timeoutMessage, 'timeout'));
    if (first.kind === 'answer') {
      const reply = replyOf(first.answer);
      return body.stream ? streamCompletion(c, reply, streamOptions) : c.json(completionBody(reply));
    }

    // Still waiting after holdMs: the response starts (200) and stays alive until the answer comes, so
    // a client's own idle limit (undici's 300 s for headers) does not end a call a person is still
    // answering. A timeout now comes as an OpenAI error object in the body (a stream's error message).
    const keepAlive = async (ping: () => Promise<unknown>) => {
      for (;;) {
        const outcome = await waitFor(Math.min(keepAliveMs, Math.max(0, deadline - Date.now())), signal);
        if (outcome.kind !== 'timeout' || Date.now() >= deadline) return outcome;
        await ping();
      }
    };
    if (body.stream) {
      return streamSSE(c, async (sse) => {
        await sse.write(`: waiting for ${answerFile}\n\n`);
        const outcome = await keepAlive(() => sse.write(`: waiting for ${answerFile}\n\n`));
        if (outcome.kind !== 'answer') {
          logEnd(outcome.kind);
          if (outcome.kind === 'timeout') await sse.writeSSE({ data: JSON.stringify(timeoutError) });
          return;
        }
        await writeCompletionChunks(sse, replyOf(outcome.answer), streamOptions);
      });
    }
    c.header('content-type', 'application/json');
    return stream(c, async (out) => {
      // JSON allows whitespace before the value: each space keeps the connection busy.
      await out.write(' ');
      const outcome = await keepAlive(() => out.write(' '));
      if (outcome.kind !== 'answer') {
        logEnd(outcome.kind);
        if (outcome.kind === 'timeout') await out.write(JSON.stringify(timeoutError));
        return;
      }
      await out.write(JSON.stringify(completionBody(replyOf(outcome.answer))));
    });
  };

  /** Embeddings are not relayed: the scripted model's lexical vectors answer at once (a stand-in, not a meaning). */
  const embeddings = async (c: Context) => {
    const call = await readEmbeddingsRequest(c);
    if (call instanceof Response) return call;
    const { body, inputs, dimensions } = call;
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((input, index) => {
      const vector = embedText(input, dimensions);
      return { object: 'embedding', index, embedding: base64 ? toBase64(vector) : vector };
    });
    const promptTokens = inputs.reduce((n, input) => n + countTokens(input), 0);
    return c.json({
      object: 'list',
      data,
      model: typeof body.model === 'string' && body.model ? body.model : defaultModel,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    });
  };

  app.post('/v1/chat/completions', completions);
  app.post('/chat/completions', completions);
  app.post('/v1/embeddings', embeddings);
  app.post('/embeddings', embeddings);
  app.get('/v1/models', (c) =>
    c.json({ object: 'list', data: [{ id: defaultModel, object: 'model', created: 0, owned_by: 'parley' }] }),
  );
  app.notFound((c) =>
    openaiError(c, 404, `No route ${c.req.method} ${c.req.path} on the relay model.`, 'invalid_request_error'),
  );
  // The message may name the folder: it goes to the relay's log, not to the client.
  app.onError((err, c) => {
    log(`error: ${err.message}`);
    return openaiError(c, 500, 'The relay model failed to handle this request; see its log.', 'server_error');
  });
  return app;
}

/** Starts the relay model on 127.0.0.1 (or options.host) and resolves once it listens. */
export async function startRelayModel(options: RelayModelOptions): Promise<RelayModel> {
  const dir = resolve(options.dir);
  const first = await firstSequence(dir);
  const closing = new AbortController();
  const host = options.host ?? '127.0.0.1';
  const app = relayApp({ ...options, dir, host }, first, closing.signal);
  return new Promise((done, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
      done({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`,
        dir,
        close: () =>
          new Promise<void>((closed) => {
            closing.abort();
            server.close(() => closed());
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
