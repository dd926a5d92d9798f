/**
 * `<id>.request.md`: one chat completion request written for a person to read — what is asked
 * (response format and its schema, the tools with their descriptions and parameters), then every
 * message under a heading naming its role, then how to answer. Text is shown as sent, never cut.
 */
import type { CompletionRequest } from '../scripted-model/answer.ts';
import type { ScriptedMessage } from '../scripted-model/context.ts';
import { jsonSchemaName } from './answer-file.ts';

interface ToolSpec {
  type?: string;
  function?: { name?: string; description?: string; parameters?: unknown };
}

/** A fence longer than any backtick run in the text, so the text shows as is. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

const json = (value: unknown) => fenced(JSON.stringify(value, null, 2), 'json');

/** A message's content: its text in a fence (prompts hold markdown and XML-like blocks; fenced, they show as sent), parts one by one. */
function contentOf(content: unknown): string {
  if (content === undefined || content === null || content === '') return '_(no text)_';
  if (typeof content === 'string') return fenced(content, 'text');
  if (!Array.isArray(content)) return json(content);
  return content
    .map((part: unknown) => {
      const p = part as { type?: string; text?: string; image_url?: { url?: string } };
      if (p?.type === 'text' && typeof p.text === 'string') return fenced(p.text, 'text');
      if (p?.type === 'image_url') {
        const url = p.image_url?.url ?? '';
        return `_(image: ${url.startsWith('data:') ? `${url.slice(0, url.indexOf(',') + 1)}… ${url.length} characters` : url})_`;
      }
      return json(part);
    })
    .join('\n\n');
}

function messageOf(m: ScriptedMessage, index: number): string {
  const title = `### ${index + 1}. ${m.role}${m.tool_call_id ? ` (result of ${m.tool_call_id})` : ''}${m.name ? ` — ${m.name}` : ''}`;
  const parts = [title, contentOf(m.content)];
  for (const call of m.tool_calls ?? []) {
    let args: unknown = call.function?.arguments;
    try {
      args = JSON.parse(String(args));
    } catch {
      // shown as sent
    }
    parts.push(`Tool call \`${call.id ?? ''}\`: \`${call.function?.name ?? ''}\`\n\n${json(args)}`);
  }
  return parts.join('\n\n');
}

function toolsOf(tools: ToolSpec[]): string {
  return tools
    .map((t) => {
      const f = t.function ?? {};
      return [
        `### \`${f.name ?? '(no name)'}\``,
        f.description?.trim() || '_(no description)_',
        json(f.parameters ?? {}),
      ].join('\n\n');
    })
    .join('\n\n');
}

export interface RenderInput {
  id: string;
  headers: Record<string, string>;
  body: CompletionRequest & { tool_choice?: unknown };
  /** The answer file's name, for the "how to answer" lines. */
  answerFile: string;
}

export function renderRequest({ id, headers, body, answerFile }: RenderInput): string {
  const role = headers['x-parley-role'] ?? '(none)';
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const facts = [
    `role **${role}**`,
    headers['x-parley-run-id'] ? `run \`${headers['x-parley-run-id']}\`` : undefined,
    `model \`${body.model ?? ''}\``,
    body.stream ? 'streamed' : 'not streamed',
    maxTokens !== undefined ? `max output tokens ${maxTokens}` : undefined,
    body.temperature !== undefined ? `temperature ${body.temperature}` : undefined,
  ].filter(Boolean);
  const out = [`# ${id}`, facts.join(' · ')];

  const schemaName = jsonSchemaName(body);
  if (schemaName !== undefined) {
    out.push(
      `## Answer format: JSON (response_format json_schema \`${schemaName}\`)`,
      'The answer\'s "content" must be one JSON object matching this schema:',
      json(body.response_format?.json_schema?.schema ?? {}),
    );
  }
  const tools = (body.tools ?? []) as ToolSpec[];
  if (tools.length) {
    const choice = body.tool_choice !== undefined ? ` (tool_choice: \`${JSON.stringify(body.tool_choice)}\`)` : '';
    out.push(`## Tools offered (${tools.length})${choice}`, toolsOf(tools));
  }
  out.push(`## Messages (${body.messages.length})`, body.messages.map(messageOf).join('\n\n'));

  const example =
    schemaName !== undefined
      ? '{"content": {…the JSON object…}}'
      : tools.length
        ? `{"content": "…"}  or  {"tool_calls": [{"name": "${tools[0]?.function?.name ?? 'tool'}", "arguments": {…}}]}`
        : '{"content": "…"}';
  out.push('## How to answer', `Write \`${answerFile}\` in this folder: \`${example}\``);
  return `${out.join('\n\n')}\n`;
}
