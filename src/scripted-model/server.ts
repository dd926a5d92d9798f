/**
 * The scripted model as an HTTP server: an OpenAI-compatible /v1/chat/completions (JSON and SSE
 * streaming) and /v1/embeddings on 127.0.0.1, with latency, fault injection and a request log for tests to assert on.
 */
import { Hono, type Context } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { decideAnswer, schemaNameOf, withinMaxTokens, type CompletionRequest } from './answer.ts';
import { contentText, readContext } from './context.ts';
import { embedText, toBase64 } from './embeddings.ts';
import { FaultPlan, parseFaultRules, type FaultKind, type FaultRule } from './faults.ts';
import { countTokens } from './tokens.ts';
import {
  completionBody,
  openaiError,
  outputTokensOf,
  promptTokensOf,
  readCompletionRequest,
  readEmbeddingsRequest,
  streamCompletion,
  usageOf,
  wait,
} from './completion-reply.ts';
import { hoistSystem, parseProfiles, reasoningText, rejectionOf } from './profiles.ts';
import { findLeftovers, promptCheckOn, promptLeftovers } from './leftovers.ts';

export interface ScriptedModelOptions {
  /** Port to bind on 127.0.0.1 (default 0: a free one). */
  port?: number;
  host?: string;
  /** Fixed latency before the first byte of every answer. */
  latencyMs?: number;
  /** Extra latency per output token (spread over the chunks when streaming). */
  perTokenMs?: number;
  /** Probability (0..1) that a call fails with one of faultKinds (seeded, so repeatable). */
  faultRate?: number;
  faultKinds?: FaultKind[];
  seed?: number;
  /** Scripted faults for the next calls matching a role or text. */
  faults?: FaultRule[];
  /** Retry-After sent with a 429 (default 1000 ms; whole seconds go in Retry-After, else also retry-after-ms). */
  retryAfterMs?: number;
  /** Model name reported when the request names none. */
  model?: string;
  /**
   * Most entries the request log keeps, oldest dropped first (default: all, as tests want). A
   * long-lived server (`npm start`'s built-in model, `npm run scripted-model`) sets one, or its log
   * would grow by every request's body for the life of the process.
   */
  logLimit?: number;
  /**
   * Provider profiles (docs/scripted-model.md): quirks of non-OpenAI endpoints to reproduce, as a
   * comma list or array of profile and preset names (default "openai": none).
   */
  profile?: string | readonly string[];
  /**
   * Refuse (400) and record every request that carries an unrendered placeholder (leftovers.ts).
   * Default: on when PARLEY_SCRIPTED_PROMPT_CHECK=1 (the test suite sets it), else off.
   */
  promptCheck?: boolean;
}

/** One entry of the request log. Times are epoch milliseconds with sub-millisecond precision. */
export interface ScriptedRequestLog {
  id: number;
  /** Which endpoint was called. */
  endpoint: 'chat.completions' | 'embeddings';
  arrivedAt: number;
  /** When the answer was fully sent, or the client went away; undefined while in flight. */
  finishedAt?: number;
  role?: string;
  runId?: string;
  model: string;
  schemaName?: string;
  stream: boolean;
  tools: string[];
  fault?: FaultKind;
  status?: number;
  /** True when the client closed the connection before the answer was complete. */
  aborted: boolean;
  lastUserMessage: string;
  /** Embeddings: how many inputs were embedded. */
  inputs?: number;
  /** With the prompt check on: the unrendered placeholders the request carried (it was answered 400). */
  leftovers?: string[];
  /** What the scripted model answered (text or JSON; none for tool calls), to follow a value through the engine. */
  answer?: string;
  /** The request body as received, for assertions on prompts. */
  body: unknown;
  /** The request headers (lower-case names), for assertions on what the client sent. */
  headers: Record<string, string>;
}

export interface ScriptedModel {
  /** Base URL of the server, e.g. http://127.0.0.1:41234 (the OpenAI base URL is `${url}/v1`). */
  url: string;
  /** The request log, oldest first (live: grows as requests arrive). */
  requests: ScriptedRequestLog[];
  setFaults(rules: FaultRule[]): void;
  close(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

export function scriptedModelApp(
  options: ScriptedModelOptions,
  log: ScriptedRequestLog[],
  faults: FaultPlan,
  closing: AbortSignal,
): Hono {
  const app = new Hono();
  const latencyMs = options.latencyMs ?? 0;
  const perTokenMs = options.perTokenMs ?? 0;
  const retryAfterMs = options.retryAfterMs ?? 1000;
  const logLimit = options.logLimit ?? Infinity;
  const profiles = parseProfiles(options.profile);
  const promptCheck = promptCheckOn(options.promptCheck);
  // Trims in chunks (a tenth of the limit at a time), so a full log costs no array shift per request.
  const append = (entry: ScriptedRequestLog) => {
    log.push(entry);
    if (log.length > logLimit + Math.ceil(logLimit / 10)) log.splice(0, log.length - logLimit);
  };
  // Its own counter, so ids (and tool call ids) stay unique when a test empties the log.
  let nextId = 1;

  /** Watches for the client going away (or the server closing); finish() records the outcome once. */
  const track = (c: Context, entry: ScriptedRequestLog) => {
    const clientSignal = c.req.raw.signal;
    const signal = AbortSignal.any([clientSignal, closing]);
    clientSignal.addEventListener(
      'abort',
      () => {
        if (entry.finishedAt === undefined) {
          entry.aborted = true;
          entry.finishedAt = now();
        }
      },
      { once: true },
    );
    const finish = (status: number) => {
      entry.status = status;
      if (entry.finishedAt === undefined) entry.finishedAt = now();
    };
    return { signal, finish };
  };

  /** The faults that answer without a body of the endpoint's own shape: 429, 500, hang. */
  const failFast = async (
    c: Context,
    fault: FaultKind | undefined,
    finish: (status: number) => void,
    signal: AbortSignal,
  ): Promise<Response | undefined> => {
    if (fault === '429') {
      finish(429);
      const headers: Record<string, string> = { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) };
      if (retryAfterMs % 1000 !== 0) headers['retry-after-ms'] = String(retryAfterMs);
      return c.json(
        {
          error: {
            message: 'Rate limit reached (scripted fault).',
            type: 'rate_limit_error',
            param: null,
            code: 'rate_limit_exceeded',
          },
        },
        429,
        headers,
      );
    }
    if (fault === '500') {
      finish(500);
      return openaiError(c, 500, 'The server had an error (scripted fault).', 'server_error');
    }
    if (fault === 'hang') {
      // Until the client gives up (its timeout or abort) or the server closes.
      await wait(2 ** 31 - 1, signal);
      finish(499);
      return c.body(null, 499 as 400);
    }
    return undefined;
  };

  const completions = async (c: Context) => {
    const read = await readCompletionRequest(c);
    if (read instanceof Response) return read;
    let body: CompletionRequest = read;
    if (profiles.has('system-hoisted')) body = { ...body, messages: hoistSystem(body.messages, contentText) };
    const role = c.req.header('x-parley-role') ?? undefined;
    const lastUser = [...body.messages].reverse().find((m) => m?.role === 'user');
    const lastUserText = contentText(lastUser?.content);
    const ctx = readContext(body.messages);
    const entry: ScriptedRequestLog = {
      id: nextId++,
      endpoint: 'chat.completions',
      arrivedAt: now(),
      role,
      runId: c.req.header('x-parley-run-id') ?? undefined,
      model: typeof body.model === 'string' && body.model ? body.model : (options.model ?? 'scripted'),
      schemaName: schemaNameOf(body),
      stream: body.stream === true,
      tools: (body.tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean),
      aborted: false,
      lastUserMessage: lastUserText,
      body,
      headers: c.req.header(),
    };
    append(entry);
    const leftovers = promptCheck ? findLeftovers(body, role) : [];
    if (leftovers.length) {
      entry.leftovers = leftovers;
      promptLeftovers.push({ role, runId: entry.runId, found: leftovers });
      track(c, entry).finish(400);
      const message = `The prompt carries unrendered placeholders (scripted model's prompt check): ${leftovers.join('; ')}`;
      return c.json({ error: { message, type: 'invalid_request_error', param: null, code: 'prompt_leftover' } }, 400);
    }
    const rejection = rejectionOf(body as CompletionRequest & Record<string, unknown>, profiles);
    if (rejection) {
      track(c, entry).finish(400);
      return c.json(
        {
          error: {
            message: rejection.message,
            type: 'invalid_request_error',
            param: rejection.param,
            code: rejection.code,
          },
        },
        400,
      );
    }
    const fault = faults.pick(role, lastUserText, ctx.directives.fault);
    if (fault) entry.fault = fault;

    const { signal, finish } = track(c, entry);
    if (!(await wait(latencyMs + (ctx.directives.latencyMs ?? 0), signal)))
      return (finish(499), c.body(null, 499 as 400));
    const failed = await failFast(c, fault, finish, signal);
    if (failed) return failed;

    const id = `chatcmpl-scripted-${entry.id}`;
    const decided = decideAnswer(body, role ?? '', fault, `call_${entry.id}`, profiles);
    const answer = withinMaxTokens(decided, body, outputTokensOf(decided));
    if (answer.content !== null) entry.answer = answer.content;
    // reasoning: the thinking comes beside the answer (reasoning_content as DeepSeek, reasoning as OpenRouter and vLLM) and counts as output.
    const reasoning = profiles.has('reasoning') ? reasoningText(answer.content ?? '') : undefined;
    const reasoningTokens = reasoning ? countTokens(reasoning) : 0;
    const completionTokens = outputTokensOf(answer) + reasoningTokens;
    const usage = usageOf(promptTokensOf(body.messages), completionTokens, reasoningTokens);
    const reply = { id, model: entry.model, answer, usage, reasoning };

    if (!body.stream) {
      if (!(await wait(perTokenMs * completionTokens, signal))) return (finish(499), c.body(null, 499 as 400));
      finish(200);
      return c.json(completionBody(reply));
    }
    return streamCompletion(c, reply, {
      includeUsage: body.stream_options?.include_usage === true && !profiles.has('no-stream-usage'),
      pace: (piece) => wait(perTokenMs * countTokens(piece), signal),
      onDone: () => finish(200),
    });
  };

  /** POST /v1/embeddings: deterministic hashed-feature vectors (see embeddings.ts), with the same latency, faults and log. */
  const embeddings = async (c: Context) => {
    const call = await readEmbeddingsRequest(c);
    if (call instanceof Response) return call;
    const { body, inputs, dimensions } = call;
    const role = c.req.header('x-parley-role') ?? undefined;
    const text = inputs.join('\n');
    const entry: ScriptedRequestLog = {
      id: nextId++,
      endpoint: 'embeddings',
      arrivedAt: now(),
      role,
      runId: c.req.header('x-parley-run-id') ?? undefined,
      model: typeof body.model === 'string' && body.model ? body.model : (options.model ?? 'scripted'),
      stream: false,
      tools: [],
      aborted: false,
      lastUserMessage: text,
      inputs: inputs.length,
      body,
      headers: c.req.header(),
    };
    append(entry);
    // Only scripted rules (and the random rate) fault embeddings: directives in a query are meant for its chat calls.
    const fault = faults.pick(role, text, undefined);
    if (fault) entry.fault = fault;

    const { signal, finish } = track(c, entry);
    if (!(await wait(latencyMs, signal))) return (finish(499), c.body(null, 499 as 400));
    const failed = await failFast(c, fault, finish, signal);
    if (failed) return failed;

    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((input, index) => {
      const vector = embedText(input, dimensions);
      // schema: 200 with embeddings of the wrong type.
      const embedding = fault === 'schema' ? 'not-a-vector' : base64 ? toBase64(vector) : vector;
      return { object: 'embedding', index, embedding };
    });
    const promptTokens = inputs.reduce((n, input) => n + countTokens(input), 0);
    const answer = {
      object: 'list',
      data,
      model: entry.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
    finish(200);
    if (fault === 'malformed') {
      const json = JSON.stringify(answer);
      return c.body(json.slice(0, Math.max(1, Math.floor(json.length / 2))), 200, {
        'content-type': 'application/json',
      });
    }
    return c.json(answer);
  };

  app.post('/v1/chat/completions', completions);
  app.post('/v1/embeddings', embeddings);
  app.post('/embeddings', embeddings);
  app.post('/chat/completions', completions);
  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: [{ id: options.model ?? 'scripted', object: 'model', created: 0, owned_by: 'parley' }],
    }),
  );
  app.get('/_scripted/log', (c) => c.json(log.map(({ body: _body, headers: _headers, ...rest }) => rest)));
  app.post('/_scripted/faults', async (c) => {
    try {
      faults.setRules(parseFaultRules(await c.req.json()));
      return c.json({ ok: true });
    } catch (err) {
      return openaiError(c, 400, err instanceof Error ? err.message : String(err), 'invalid_request_error');
    }
  });
  app.notFound((c) =>
    openaiError(c, 404, `No route ${c.req.method} ${c.req.path} on the scripted model.`, 'invalid_request_error'),
  );
  app.onError((err, c) => openaiError(c, 500, err.message, 'server_error'));
  return app;
}

/** Starts the scripted model on 127.0.0.1 (or options.host) and resolves once it listens. */
export function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const requests: ScriptedRequestLog[] = [];
  const faults = new FaultPlan({
    rules: options.faults,
    rate: options.faultRate,
    kinds: options.faultKinds,
    seed: options.seed,
  });
  const closing = new AbortController();
  const app = scriptedModelApp(options, requests, faults, closing.signal);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`,
        requests,
        setFaults: (rules) => faults.setRules(rules),
        close: () =>
          new Promise<void>((done) => {
            closing.abort();
            server.close(() => done());
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
