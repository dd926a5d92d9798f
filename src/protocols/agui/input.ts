/**
 * RunAgentInput → RunRequest. The body is validated with @ag-ui/core's own RunAgentInputSchema;
 * Parley's options travel in forwardedProps.parley (docs/protocols/agui.md):
 *   { mode?, model?, models?, budget?, reasoning?, citations?, interrupts?: boolean, continueOnDisconnect?: boolean }
 * The query is the latest user message; earlier user/assistant/system/developer messages and the
 * input's context entries become prior messages. Tool messages and frontend tools are not used.
 */
import { contentToText, type ContentPart as AguiPart, type Message, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import {
  type Caller,
  type ContentPart,
  type PriorMessage,
  resolveModelChoice,
  type RunRequest,
} from '../../graph/contract.ts';
import { describeIssue, RunOptionsSchema } from '../shared/run-options.ts';

export const ParleyPropsSchema = RunOptionsSchema.extend({
  /**
   * End the stream with the standard interrupt outcome when a tool call needs approval. Unset:
   * off for a new run, on for a resume (a client that resumed once handles interrupts).
   */
  interrupts: z.boolean().optional(),
  /** Keep the run going when the client disconnects (default: a disconnect cancels it). */
  continueOnDisconnect: z.boolean().default(false),
}).strict();
export type ParleyProps = z.infer<typeof ParleyPropsSchema>;

export type ParsedInput =
  { ok: true; input: RunAgentInput; parley: ParleyProps } | { ok: false; field: string; message: string };

export function parseRunAgentInput(body: unknown): ParsedInput {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) return { ok: false, ...describeIssue(parsed.error) };
  const input = parsed.data as RunAgentInput;
  const raw: unknown = isObject(input.forwardedProps) ? input.forwardedProps.parley : undefined;
  const props = ParleyPropsSchema.safeParse(raw ?? {});
  if (!props.success) return { ok: false, ...describeIssue(props.error, 'forwardedProps.parley') };
  return { ok: true, input, parley: props.data };
}

export type BuiltRequest = { ok: true; request: RunRequest } | { ok: false; field: string; message: string };

export function toRunRequest(input: RunAgentInput, parley: ParleyProps, caller: Caller): BuiltRequest {
  const lastUser = input.messages.findLastIndex((m) => m.role === 'user');
  if (lastUser === -1)
    return {
      ok: false,
      field: 'messages',
      message: 'messages: no user message to answer (the run answers the latest user message)',
    };
  const user = input.messages[lastUser] as Extract<Message, { role: 'user' }>;
  const query = contentToText(user.content).trim();
  const parts = typeof user.content === 'string' ? [] : imageParts(user.content);
  if (!query && parts.length === 0) {
    return {
      ok: false,
      field: `messages.${lastUser}.content`,
      message: `messages.${lastUser}.content: the latest user message has no text or image`,
    };
  }
  const prior: PriorMessage[] = [
    ...input.context.map((c): PriorMessage => ({ role: 'system', content: `${c.description}: ${c.value}` })),
    ...input.messages.slice(0, lastUser).flatMap(toPrior),
  ];
  const models = resolveModelChoice(parley);
  return {
    ok: true,
    request: {
      runId: input.runId,
      threadId: input.threadId,
      query,
      ...(parts.length ? { parts } : {}),
      ...(prior.length ? { messages: prior } : {}),
      ...(parley.mode ? { mode: parley.mode } : {}),
      ...(models ? { models } : {}),
      ...(parley.budget ? { budget: parley.budget } : {}),
      ...(parley.reasoning !== undefined ? { reasoning: parley.reasoning } : {}),
      ...(parley.citations ? { citations: parley.citations } : {}),
      caller,
      protocol: 'agui',
    },
  };
}

function toPrior(m: Message): PriorMessage[] {
  if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system' && m.role !== 'developer') return [];
  const content = typeof m.content === 'string' ? m.content : m.content ? contentToText(m.content) : '';
  if (!content.trim()) return [];
  return [{ role: m.role === 'developer' ? 'system' : m.role, content }];
}

function imageParts(content: AguiPart[]): ContentPart[] {
  return content.flatMap((p): ContentPart[] => {
    if (p.type !== 'image') return [];
    if (p.source.type === 'url')
      return [{ type: 'image', url: p.source.value, ...(p.source.mimeType ? { mimeType: p.source.mimeType } : {}) }];
    if (p.source.type === 'data')
      return [
        { type: 'image', url: `data:${p.source.mimeType};base64,${p.source.value}`, mimeType: p.source.mimeType },
      ];
    return [];
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
