/**
 * Which of a session's tools a specialist is offered. The project stands in for the `filesystem`
 * server: a specialist bound to `filesystem/…` tools works on the session's project instead (reading
 * when it may read, writing and running commands when it may write), and is not offered the
 * configured filesystem server in that run. The client's own MCP servers are offered to every
 * tool-loop specialist: the user attached them for this session.
 */
import type { ToolDescriptor } from '../../tools/types.ts';

const PROJECT = 'project/';
const FILESYSTEM = 'filesystem/';
/** Bindings that let a specialist change files (the reference filesystem server's writing tools, or ours). */
const WRITES = new Set([
  'filesystem/write_file',
  'filesystem/edit_file',
  'filesystem/move_file',
  'filesystem/create_directory',
  'project/write_file',
  'project/run_command',
]);
const PROJECT_READS = new Set(['project/read_file']);

export interface OfferedTools {
  tools: ToolDescriptor[];
  /** Ids of the offered tools the session's host serves. */
  fromSession: Set<string>;
}

export function withSessionTools(bindings: string[], own: ToolDescriptor[], session: ToolDescriptor[]): OfferedTools {
  const fileBound = bindings.some((b) => b.startsWith(FILESYSTEM) || b.startsWith(PROJECT));
  const writes = bindings.some((b) => WRITES.has(b));
  const hasProject = session.some((t) => t.id.startsWith(PROJECT));
  const kept = hasProject ? own.filter((t) => !t.id.startsWith(FILESYSTEM)) : own;
  const ids = new Set(kept.map((t) => t.id));
  const offered = session.filter((t) => {
    if (ids.has(t.id)) return false;
    if (!t.id.startsWith(PROJECT)) return true;
    return fileBound && (writes || PROJECT_READS.has(t.id));
  });
  return { tools: [...kept, ...offered], fromSession: new Set(offered.map((t) => t.id)) };
}
