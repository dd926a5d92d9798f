/**
 * The chat-completions request as Parley reads it: validated loosely with zod (unknown fields are
 * kept for the passthrough), the routing mode chosen, and messages turned into a RunRequest.
 */
import { z } from 'zod';
import {
  type Caller,
  type ContentPart,
  type PriorMessage,
  readModelChoice,
  type RunMode,
  type RunRequest,
  CITATION_STYLES,
} from '../../graph/contract.ts';
import type { Config } from '../../config.ts';

export const ROUTING_MODES = ['passthrough', 'orchestration', 'council', 'auto'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/** Model ids /v1/models lists for Parley itself; any other id is an upstream model. */
export const PARLEY_MODELS: Record<string, RoutingMode | undefined> = {
  parley: undefined,
  'parley-orchestration': 'orchestration',
  'parley-council': 'council',
};

const Part = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.looseObject({ url: z.string() }).optional(),
});
const Message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
});

export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(z.unknown()).nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
  /**
   * Parley's own options for a run (OpenAI SDKs send it as an extra body field):
   * `{ "models": { "<role>": "<id>" }, "reasoning": true, "citations": "numbered" }`.
   */
  parley: z
    .looseObject({
      models: z.unknown().optional(),
      reasoning: z.boolean().optional(),
      citations: z.enum(CITATION_STYLES).optional(),
    })
    .nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** The mode for a request, or an error message for a bad X-Routing-Mode. */
export function routingModeOf(
  header: string | undefined,
  body: ChatRequest,
  config: Config,
): RoutingMode | { error: string } {
  // The client does its own function calling / structured output: Parley must not interfere.
  if ((body.tools && body.tools.length > 0) || body.response_format) return 'passthrough';
  if (header !== undefined && header !== '') {
    const mode = header.trim().toLowerCase();
    if (!(ROUTING_MODES as readonly string[]).includes(mode))
      return { error: `X-Routing-Mode must be one of ${ROUTING_MODES.join(', ')}; got ${JSON.stringify(header)}` };
    return mode as RoutingMode;
  }
  if (body.model in PARLEY_MODELS) return PARLEY_MODELS[body.model] ?? config.protocols.openaiRouting;
  return config.protocols.openaiRouting;
}

const RUN_MODE: Record<Exclude<RoutingMode, 'passthrough'>, RunMode> = {
  orchestration: 'orchestrate',
  council: 'council',
  auto: 'auto',
};

type Built = { ok: true; request: RunRequest } | { ok: false; param: string; message: string };

export function toRunRequest(
  body: ChatRequest,
  mode: Exclude<RoutingMode, 'passthrough'>,
  caller: Caller,
  threadId?: string,
): Built {
  const last = body.messages.findLastIndex((m) => m.role === 'user');
  if (last === -1) return { ok: false, param: 'messages', message: 'messages must contain a user message' };
  const user = body.messages[last]!;
  const query = textOf(user.content).trim();
  const parts: ContentPart[] = Array.isArray(user.content)
    ? user.content.flatMap((p) =>
        p.type === 'image_url' && p.image_url ? [{ type: 'image' as const, url: p.image_url.url }] : [],
      )
    : [];
  if (!query && parts.length === 0)
    return { ok: false, param: `messages.${last}.content`, message: 'the last user message is empty' };
  // A model that is not one of Parley's names is the run's model for every role (docs/protocols/openai.md).
  const chosen = readModelChoice({
    model: body.model in PARLEY_MODELS ? undefined : body.model,
    models: body.parley?.models,
  });
  if (!chosen.ok) {
    const param = chosen.field.startsWith('models') ? `parley.${chosen.field}` : chosen.field;
    return { ok: false, param, message: chosen.message.slice(chosen.field.length + 2) };
  }
  const prior: PriorMessage[] = body.messages.slice(0, last).flatMap((m): PriorMessage[] => {
    if (m.role === 'tool' || m.role === 'function') return [];
    const content = textOf(m.content);
    return content.trim() ? [{ role: m.role === 'developer' ? 'system' : m.role, content }] : [];
  });
  return {
    ok: true,
    request: {
      query,
      ...(parts.length ? { parts } : {}),
      ...(prior.length ? { messages: prior } : {}),
      ...(threadId ? { threadId } : {}),
      mode: RUN_MODE[mode],
      ...(chosen.models ? { models: chosen.models } : {}),
      ...(body.parley?.reasoning !== undefined ? { reasoning: body.parley.reasoning } : {}),
      ...(body.parley?.citations ? { citations: body.parley.citations } : {}),
      caller,
      protocol: 'openai',
    },
  };
}

/** Every message's text, for the passthrough's input estimate. */
export function messageTexts(body: ChatRequest): string[] {
  return body.messages.map((m) => textOf(m.content));
}

function textOf(content: ChatRequest['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}
