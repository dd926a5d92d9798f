/**
 * A ModelClient for bench/engine.ts `--in-process`: the scripted model's own answers
 * (src/scripted-model/answer.ts decideAnswer), computed in-process with no HTTP and no SDK, and
 * streamed word by word like the server streams them. With it the critical path is zero, so a
 * run's whole wall time is what the engine (plus the knowledge store) adds: the engine's own share
 * of the overhead, apart from the openai SDK and HTTP that every contender pays.
 */
import { decideAnswer, type CompletionRequest } from '../src/scripted-model/answer.ts';
import { countTokens, pieces } from '../src/scripted-model/tokens.ts';
import { jsonSchemaOf, validateStructured } from '../src/llm/structured.ts';
import type {
  ChatOptions,
  ChatResult,
  ModelCallOptions,
  ModelClient,
  ModelUsage,
  StreamChunk,
  StructuredOptions,
  StructuredResult,
} from '../src/llm/types.ts';

export interface InProcessModel extends ModelClient {
  /** Calls answered, per run id. */
  calls: Map<string, number>;
}

const LATENCY = /\[\[latency:(\d+)\]\]/;

/** `[[latency:N]]` in a message holds the call N ms (until aborted), as the scripted server does. */
function held(options: ModelCallOptions): Promise<void> {
  let ms = 0;
  for (const m of options.messages) {
    const match = typeof m.content === 'string' ? LATENCY.exec(m.content) : null;
    if (match) ms = Number(match[1]);
  }
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', done);
      resolve();
    }
    options.signal?.addEventListener('abort', done, { once: true });
  });
}

export function inProcessModel(): InProcessModel {
  const calls = new Map<string, number>();
  const schemas = new WeakMap<object, Record<string, unknown>>();
  const usage = (messages: unknown[], text: string): ModelUsage => ({
    model: 'scripted',
    inputTokens: countTokens(JSON.stringify(messages)),
    outputTokens: countTokens(text),
    cachedTokens: 0,
    costUsd: 0,
  });
  const answer = async (options: ModelCallOptions, extra: Partial<CompletionRequest>) => {
    if (options.runId) calls.set(options.runId, (calls.get(options.runId) ?? 0) + 1);
    await held(options);
    if (options.signal?.aborted) throw options.signal.reason;
    const body = { messages: options.messages, ...extra } as CompletionRequest;
    return decideAnswer(body, options.role, undefined, `call_${calls.size}`);
  };
  return {
    calls,
    modelFor: () => 'scripted',
    async chat(options: ChatOptions): Promise<ChatResult> {
      const a = await answer(options, { tools: options.tools as CompletionRequest['tools'] });
      const text = a.content ?? '';
      return {
        text,
        toolCalls: a.toolCalls.map((t) => ({ id: t.id, name: t.name, arguments: t.arguments })),
        finishReason: a.finishReason,
        usage: usage(options.messages, text),
      };
    },
    async structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>> {
      let schema = schemas.get(options.schema);
      if (!schema) schemas.set(options.schema, (schema = jsonSchemaOf(options.schema)));
      const a = await answer(options, {
        response_format: { type: 'json_schema', json_schema: { name: options.schemaName, schema } },
      });
      const v = validateStructured(a.content ?? '', options.schema);
      if (!v.ok) throw new Error(v.error);
      return { value: v.value, usage: usage(options.messages, a.content ?? '') };
    },
    stream(options: ModelCallOptions): AsyncIterable<StreamChunk> {
      return {
        async *[Symbol.asyncIterator]() {
          const a = await answer(options, { stream: true });
          const text = a.content ?? '';
          for (const piece of pieces(text)) yield { type: 'delta', text: piece };
          yield { type: 'done', text, finishReason: a.finishReason, usage: usage(options.messages, text) };
        },
      };
    },
  };
}
