/** Which tools a step is offered (PlanStep.changes) and what a specialist is told about its tools' servers. */
import { describe, expect, it } from 'vitest';
import { isReadOnly, toolServersNote, toolsForStep, withListAllowed } from '../../../src/graph/planning/step-tools.ts';
import type { PlanStep } from '../../../src/graph/planning/graph-plan.ts';
import type { SpecialistRecord } from '../../../src/knowledge/store.ts';
import type { ToolDescriptor } from '../../../src/tools/types.ts';

const tool = (id: string, annotations: ToolDescriptor['annotations']): ToolDescriptor => ({
  id,
  server: id.split('/')[0]!,
  name: id.split('/')[1]!,
  description: '',
  inputSchema: { type: 'object' },
  annotations,
});
const step = (changes?: boolean): PlanStep => ({
  id: 's1',
  specialist: 'writer',
  objective: 'x',
  dependsOn: [],
  phase: 'execution',
  ...(changes === undefined ? {} : { changes }),
});
const read = tool('filesystem/read_text_file', { readOnlyHint: true });
const write = tool('filesystem/write_file', { readOnlyHint: false, destructiveHint: true });
const silent = tool('notes/write_note', {});
const unsure = tool('notes/odd', { readOnlyHint: true, destructiveHint: true });

describe('step tools', () => {
  it('read-only as the approval guard reads it: readOnlyHint true and not also destructive', () => {
    expect([read, write, silent, unsure].map(isReadOnly)).toEqual([true, false, false, false]);
  });

  it('a step planned not to change anything gets read-only tools; one that changes things, or an undecided one, all', () => {
    const all = [read, write, silent, unsure];
    expect(toolsForStep(step(false), all)).toEqual([read]);
    expect(toolsForStep(step(true), all)).toEqual(all);
    expect(toolsForStep(step(), all)).toEqual(all);
  });

  it('a specialist bound to filesystem tools is also offered list_allowed_directories, once', () => {
    expect(withListAllowed(['filesystem/read_text_file'])).toEqual([
      'filesystem/read_text_file',
      'filesystem/list_allowed_directories',
    ]);
    expect(withListAllowed(['filesystem/list_allowed_directories'])).toEqual(['filesystem/list_allowed_directories']);
    expect(withListAllowed(['memory/search_nodes'])).toEqual(['memory/search_nodes']);
  });

  it("names the servers of the offered tools with their descriptions' first line, and how file paths work", () => {
    const server = (id: string, description: string) =>
      [id, { id, kind: 'mcp', description } as SpecialistRecord] as const;
    const specialists = new Map([
      server('filesystem', "Files in Parley's workspace folder, /data/workspace.\nTools:\n- read_text_file: …"),
      server('memory', 'A knowledge graph.'),
    ]);
    const note = toolServersNote({ specialists }, [read, write, tool('memory/search_nodes', { readOnlyHint: true })]);
    expect(note).toContain("- filesystem: Files in Parley's workspace folder, /data/workspace.");
    expect(note).toContain('- memory: A knowledge graph.');
    expect(note).not.toContain('Tools:');
    expect(note).toMatch(/absolute paths under the filesystem folder/);
    expect(toolServersNote({ specialists }, [silent])).toBe('');
  });
});
