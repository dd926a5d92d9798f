/**
 * Decides one completion: from the parsed request, what the assistant says (text, JSON for a
 * json_schema response_format, or tool calls), before faults and latency are applied.
 */
import { contentText, readContext, type RequestContext } from './context.ts';
import { shape, violate, type JsonSchema } from './json-schema.ts';
import { routeAnswer } from './answers/route.ts';
import { graphPlanAnswer } from './answers/graph-plan.ts';
import { verificationAnswer } from './answers/verification.ts';
import { answerEditsAnswer } from './answers/answer-edits.ts';
import { judgementAnswer } from './answers/judgement.ts';
import { pairwiseJudgementAnswer } from './answers/pairwise.ts';
import { councilReviewAnswer, councilVerdictAnswer } from './answers/council.ts';
import { textAnswer } from './answers/text.ts';
import { toolCalls, type ScriptedToolCall } from './answers/tools.ts';
import { teamTurn } from './answers/team.ts';
import { inProse, withExtraField, type ProfileSet } from './profiles.ts';
import type { CompletionRequest } from './completion-request.ts';

export type { CompletionRequest } from './completion-request.ts';

export interface Answer {
  content: string | null;
  toolCalls: ScriptedToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length';
}

const SCHEMA_ANSWERS: Record<string, (ctx: RequestContext) => unknown> = {
  route: routeAnswer,
  graph_plan: graphPlanAnswer,
  verification: verificationAnswer,
  answer_edits: answerEditsAnswer,
  judgement: judgementAnswer,
  pairwise_judgement: pairwiseJudgementAnswer,
  council_review: councilReviewAnswer,
  council_verdict: councilVerdictAnswer,
};

export function schemaNameOf(body: CompletionRequest): string | undefined {
  return body.response_format?.type === 'json_schema'
    ? body.response_format.json_schema?.name
    : (forcedTool(body) ?? promptSchema(body)?.name);
}

/** The function a request forces with tool_choice (Parley's `tool` structured strategy). */
function forcedTool(body: CompletionRequest): string | undefined {
  const choice = body.tool_choice as { type?: string; function?: { name?: string } } | undefined;
  return choice && typeof choice === 'object' && choice.type === 'function' ? choice.function?.name : undefined;
}

const SCHEMA_BLOCK = /<parley:schema name="([^"]*)">([\s\S]*?)<\/parley:schema>/g;

/** A schema given in the prompt (Parley's `prompt` structured strategy): the last <parley:schema name="…"> block. */
function promptSchema(body: CompletionRequest): { name: string; schema?: JsonSchema } | undefined {
  let found: { name: string; schema?: JsonSchema } | undefined;
  for (const m of body.messages) {
    for (const match of contentText(m.content).matchAll(SCHEMA_BLOCK)) {
      let schema: JsonSchema | undefined;
      try {
        schema = JSON.parse(match[2]!) as JsonSchema;
      } catch {
        schema = undefined;
      }
      found = { name: match[1]!, schema };
    }
  }
  return found;
}

/** The JSON text answering a json_schema request: the named answer fitted to the schema sent. */
function structuredContent(
  name: string,
  schema: JsonSchema | undefined,
  ctx: RequestContext,
  fault: string | undefined,
): string {
  const hint = SCHEMA_ANSWERS[name]?.(ctx);
  if (fault === 'schema') return JSON.stringify(violate(schema ?? {}));
  const value = schema ? shape(schema, hint) : (hint ?? {});
  const text = JSON.stringify(value);
  // Malformed: valid JSON cut short, like a model that stopped mid-object.
  return fault === 'malformed' ? text.slice(0, Math.max(1, Math.floor(text.length / 2))) + ' <truncated' : text;
}

export function decideAnswer(
  body: CompletionRequest,
  role: string,
  fault: string | undefined,
  callIdPrefix: string,
  profiles: ProfileSet = new Set(),
): Answer {
  const ctx = readContext(body.messages);
  const ignoresFormat = profiles.has('response-format-ignored');
  if (body.response_format?.type === 'json_schema' || body.response_format?.type === 'json_object') {
    const name = body.response_format.json_schema?.name ?? '';
    const content = structuredContent(name, body.response_format.json_schema?.schema, ctx, fault);
    return { content: ignoresFormat ? inProse(name, content, false) : content, toolCalls: [], finishReason: 'stop' };
  }
  const forced = forcedTool(body);
  const tool = forced === undefined ? undefined : body.tools?.find((t) => t.function?.name === forced);
  if (forced !== undefined && tool) {
    const args = structuredContent(forced, tool.function?.parameters as JsonSchema | undefined, ctx, fault);
    const call = {
      id: `${callIdPrefix}_0`,
      name: forced,
      arguments: profiles.has('strict-ignored') ? withExtraField(args) : args,
    };
    return { content: null, toolCalls: [call], finishReason: 'tool_calls' };
  }
  const inPrompt = promptSchema(body);
  if (inPrompt) {
    const content = structuredContent(inPrompt.name, inPrompt.schema, ctx, fault);
    return {
      content: ignoresFormat ? inProse(inPrompt.name, content, true) : content,
      toolCalls: [],
      finishReason: 'stop',
    };
  }
  if (body.tools?.length && body.tool_choice !== 'none') {
    const calls = ctx.team
      ? teamTurn(ctx, body.messages, body.tools, callIdPrefix)
      : toolCalls(ctx, body.messages, body.tools, callIdPrefix);
    const shown = profiles.has('strict-ignored')
      ? calls.map((c) => ({ ...c, arguments: withExtraField(c.arguments) }))
      : calls;
    if (calls.length) return { content: null, toolCalls: shown, finishReason: 'tool_calls' };
  }
  const text = textAnswer(ctx, role, body.messages);
  return {
    content: fault === 'malformed' ? '{"answer": "' + text.slice(0, 20) : text,
    toolCalls: [],
    finishReason: 'stop',
  };
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
