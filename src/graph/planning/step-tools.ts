/**
 * The tools a step is offered match its objective: a step the plan marks as not changing anything
 * (PlanStep.changes false) gets only the tools whose MCP annotations say they only read; a step that
 * changes things, or one no planner decided about (presets, proven teams from before the field,
 * spawned agents), gets every bound tool. Also what a tool-loop specialist is told about the servers
 * its tools come from (the workspace folder of the filesystem server, for one).
 */
import type { PlanStep } from './graph-plan.ts';
import type { RunState } from '../run/state.ts';
import type { ToolAnnotations } from '../../hitl/types.ts';
import type { ToolDescriptor } from '../../tools/types.ts';

/** Read-only as the approval guard reads it (hitl/guard.ts): readOnlyHint true and not also destructive. */
export const isReadOnly = (tool: { annotations?: ToolAnnotations }) =>
  tool.annotations?.readOnlyHint === true && tool.annotations.destructiveHint !== true;

export function toolsForStep<T extends { annotations?: ToolAnnotations }>(step: PlanStep, tools: T[]): T[] {
  return step.changes === false ? tools.filter(isReadOnly) : tools;
}

/**
 * The reference filesystem server answers relative paths against nothing useful: a specialist bound
 * to its tools is also offered `list_allowed_directories` (read-only), so it can learn the folder.
 */
export const LIST_ALLOWED_DIRECTORIES = 'filesystem/list_allowed_directories';

export function withListAllowed(bindings: string[]): string[] {
  const fileBound = bindings.some((b) => b.startsWith('filesystem/'));
  return fileBound && !bindings.includes(LIST_ALLOWED_DIRECTORIES) ? [...bindings, LIST_ALLOWED_DIRECTORIES] : bindings;
}

/**
 * One line per MCP server the offered tools come from, from the server's own specialist record
 * (its mcp_config.json description, rendered with the real paths at load): so a specialist working
 * on files is told the real workspace folder. Empty when no server is known.
 */
export function toolServersNote(run: Pick<RunState, 'specialists'>, tools: ToolDescriptor[]): string {
  const servers = [...new Set(tools.map((t) => t.server))];
  const lines = servers.flatMap((server) => {
    const record = run.specialists.get(server);
    if (record?.kind !== 'mcp') return [];
    const summary = record.description.split('\n')[0]!.trim();
    return summary ? [`- ${server}: ${summary}`] : [];
  });
  if (!lines.length) return '';
  const files = servers.includes('filesystem')
    ? '\nFile tools accept only paths inside their allowed folders: use absolute paths under the filesystem folder above (list_allowed_directories names it).'
    : '';
  return `\n\nYour tools come from these servers:\n${lines.join('\n')}${files}`;
}
