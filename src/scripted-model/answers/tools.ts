/**
 * Tool calls: when tools are offered and the user's last turn names one ([[tool:server/tool {args}]],
 * or a tool's name as a word), call it; a call already made with the same arguments is not repeated,
 * so a tool loop always ends.
 */
import { contentText, type RequestContext, type ScriptedMessage } from '../context.ts';
import { shape } from '../json-schema.ts';

export interface OfferedTool {
  type?: string;
  function?: { name?: string; parameters?: unknown };
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
}

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Finds the offered tool a directive means: exact name, same letters ignoring separators, or the tool part alone. */
function findTool(names: string[], wanted: string): string | undefined {
  const toolPart = wanted.split('/').at(-1) ?? wanted;
  return (
    names.find((n) => n === wanted) ??
    names.find((n) => squash(n) === squash(wanted)) ??
    names.find((n) => n === toolPart || squash(n).endsWith(squash(toolPart)))
  );
}

export function toolCalls(
  ctx: RequestContext,
  messages: ScriptedMessage[],
  tools: OfferedTool[],
  callIdPrefix: string,
): ScriptedToolCall[] {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  if (lastUser < 0 || messages.slice(lastUser + 1).some((m) => m.role === 'tool')) return [];
  const offered = tools
    .filter((t) => t.function?.name)
    .map((t) => ({ name: t.function!.name!, parameters: t.function!.parameters }));
  const names = offered.map((t) => t.name);
  const already = new Set(
    messages.flatMap((m) => (m.tool_calls ?? []).map((c) => `${c.function?.name}|${c.function?.arguments ?? ''}`)),
  );
  const wanted: { name: string; args: unknown }[] = [];
  for (const d of ctx.directives.tools) {
    const name = findTool(names, d.tool);
    if (name) wanted.push({ name, args: d.args });
  }
  if (wanted.length === 0) {
    const text = contentText(messages[lastUser]!.content).toLowerCase();
    for (const t of offered) {
      const escaped = t.name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^a-z0-9_])${escaped}($|[^a-z0-9_])`).test(text))
        wanted.push({ name: t.name, args: shape(t.parameters ?? {}, undefined) });
    }
  }
  return wanted
    .map((w) => ({ name: w.name, arguments: JSON.stringify(w.args ?? {}) }))
    .filter((c) => !already.has(`${c.name}|${c.arguments}`))
    .map((c, i) => ({ id: `${callIdPrefix}_${i}`, ...c }));
}
