/**
 * Decides one completion: from the parsed request, what the assistant says (text, JSON for a
 * json_schema response_format, or tool calls), before faults and latency are applied.
 */
import { readContext, type RequestContext, type ScriptedMessage } from './context.ts';
import { shape, violate, type JsonSchema } from './json-schema.ts';
import { routeAnswer } from './answers/route.ts';
import { graphPlanAnswer } from './answers/graph-plan.ts';
import { verificationAnswer } from './answers/verification.ts';
import { councilReviewAnswer, councilVerdictAnswer } from './answers/council.ts';
import { textAnswer } from './answers/text.ts';
import { toolCalls, type OfferedTool, type ScriptedToolCall } from './answers/tools.ts';

export interface CompletionRequest {
  model?: string;
  messages: ScriptedMessage[];
  tools?: OfferedTool[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  response_format?: { type?: string; json_schema?: { name?: string; schema?: JsonSchema } };
}

export interface Answer {
  content: string | null;
  toolCalls: ScriptedToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length';
}

const SCHEMA_ANSWERS: Record<string, (ctx: RequestContext) => unknown> = {
  route: routeAnswer,
  graph_plan: graphPlanAnswer,
  verification: verificationAnswer,
  council_review: councilReviewAnswer,
  council_verdict: councilVerdictAnswer,
};

export function schemaNameOf(body: CompletionRequest): string | undefined {
  return body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.name : undefined;
}

/** The JSON text answering a json_schema request: the named answer fitted to the schema sent. */
function structuredContent(name: string, schema: JsonSchema | undefined, ctx: RequestContext, fault: string | undefined): string {
  const hint = SCHEMA_ANSWERS[name]?.(ctx);
  if (fault === 'schema') return JSON.stringify(violate(schema ?? {}));
  const value = schema ? shape(schema, hint) : (hint ?? {});
  const text = JSON.stringify(value);
  // Malformed: valid JSON cut short, like a model that stopped mid-object.
  return fault === 'malformed' ? text.slice(0, Math.max(1, Math.floor(text.length / 2))) + ' <truncated' : text;
}

export function decideAnswer(body: CompletionRequest, role: string, fault: string | undefined, callIdPrefix: string): Answer {
  const ctx = readContext(body.messages);
  const name = schemaNameOf(body);
  if (name !== undefined || body.response_format?.type === 'json_object') {
    return { content: structuredContent(name ?? '', body.response_format?.json_schema?.schema, ctx, fault), toolCalls: [], finishReason: 'stop' };
  }
  if (body.tools?.length && body.tool_choice !== 'none') {
    const calls = toolCalls(ctx, body.messages, body.tools, callIdPrefix);
    if (calls.length) return { content: null, toolCalls: calls, finishReason: 'tool_calls' };
  }
  const text = textAnswer(ctx, role, body.messages);
  return { content: fault === 'malformed' ? '{"answer": "' + text.slice(0, 20) : text, toolCalls: [], finishReason: 'stop' };
}

/**
 * Like a real model, never more output than max_tokens (max_completion_tokens): a longer answer is
 * cut to that many tokens (about four characters each), tool calls dropped, finish_reason "length".
 */
export function withinMaxTokens(answer: Answer, request: CompletionRequest, outputTokens: number): Answer {
  const max = request.max_completion_tokens ?? request.max_tokens;
  if (typeof max !== 'number' || max <= 0 || outputTokens <= max) return answer;
  return { content: (answer.content ?? '').slice(0, max * 4), toolCalls: [], finishReason: 'length' };
}
