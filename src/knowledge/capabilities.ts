/**
 * What a task needs that only some specialists' tools can do, and who can do it (issue 43 §4): a task
 * that asks to write, save or create a file needs a tool that writes files, and the planner's
 * candidates are ranked for that, not only by the words they share with the query. Text alone put the
 * memory server (1.0: "notes", "team") above the filesystem (0.95) for a task that writes a file, and
 * below it three prompt specialists when the query said "save … to a file called team.md".
 *
 * A tool writes files when its MCP annotations do not say it only reads, and its name or description
 * speaks of writing, creating, saving or overwriting a file. A tool server (an `mcp` specialist) whose own
 * tools write files is what the need is about (fit 1); a specialist with such a tool among its bindings can
 * also do it (fit 0.25). Both backends rank through knowledge/view.ts, so they rank the same.
 */
import type { SpecialistRecord, ToolRecord } from './store.ts';

/** How much of a candidate's relevance is the fit to what the task needs, when it needs something. */
export const CAPABILITY_WEIGHT = 0.6;

const WRITE_VERB =
  /\b(write|writes|writing|save|saves|saving|store|export|create|creates|put|dump|append|overwrite|generate|record)\b/i;
const FILE_OBJECT =
  /\b(files?|filename|disk|folder|directory|workspace)\b|\b[\w-]+\.(md|markdown|txt|json|csv|tsv|ya?ml|toml|ini|html?|xml|py|ts|js|mjs|sh|sql|log|conf|env)\b/i;

/** Whether the task asks for a file to be written (a write verb and a file, a folder or a file name). */
export const asksToWriteFile = (query: string) => WRITE_VERB.test(query) && FILE_OBJECT.test(query);

const TOOL_WRITES = /\b(write|writes|create|creates|save|saves|overwrite|overwrites|append|appends)\b/i;
const TOOL_FILE = /\bfiles?\b/i;

/** Whether a tool writes files: not read-only by its annotations, and it says it writes or creates a file. */
export function writesFiles(tool: Pick<ToolRecord, 'name' | 'description' | 'annotations' | 'available'>): boolean {
  if (!tool.available || tool.annotations?.readOnlyHint === true) return false;
  const text = `${tool.name.replace(/[_-]/g, ' ')} ${tool.description}`;
  return TOOL_WRITES.test(text) && TOOL_FILE.test(text);
}

/** How well a specialist serves a file-writing task: 1 a tool server that writes files, 0.25 one bound to such a tool, else 0. */
export function fileWriteFit(specialist: SpecialistRecord, fileWriters: { has(toolId: string): boolean }): number {
  if (!specialist.tools.some((t) => fileWriters.has(t))) return 0;
  return specialist.kind === 'mcp' ? 1 : 0.25;
}

/** Text relevance and fit in one figure (0..1) for a task that needs the capability. */
export const withFit = (relevance: number, fit: number) =>
  (1 - CAPABILITY_WEIGHT) * relevance + CAPABILITY_WEIGHT * fit;
