/** What a task needs and who can do it (knowledge/capabilities.ts): file-writing tasks and file-writing tools. */
import { describe, expect, it } from 'vitest';
import { asksToWriteFile, fileWriteFit, writesFiles } from '../../../src/knowledge/capabilities.ts';
import { specialist, tool } from '../../support/records.ts';

describe('asksToWriteFile', () => {
  it('is a write verb and a file, a folder or a file name', () => {
    for (const q of [
      'Write an onboarding checklist for new engineers and save it to onboarding.md',
      'Create a file notes.txt with a summary of the meeting',
      'Save the team design to a file called team.md',
      'Export the results as results.csv',
      'Put the plan in the workspace folder',
    ])
      expect(asksToWriteFile(q), q).toBe(true);
  });

  it('is not a writing task without a file, nor a file task that only reads', () => {
    for (const q of [
      'Write an onboarding checklist for new engineers',
      'Summarise the notes in meeting.md',
      'Which files in the workspace mention Kafka?',
      'Create a team to review pull requests',
    ])
      expect(asksToWriteFile(q), q).toBe(false);
  });
});

describe('writesFiles and fileWriteFit', () => {
  const write = tool('fs', 'write_file', {
    description: 'Create a new file or completely overwrite an existing file.',
    annotations: {},
  });
  const read = tool('fs', 'read_text_file', { description: 'Read the complete contents of a file as text.' });
  const entities = tool('memory', 'create_entities', {
    description: 'Create multiple new entities in the knowledge graph',
    annotations: {},
  });

  it('a tool writes files when it is not read-only and says it writes or creates a file', () => {
    expect(writesFiles(write)).toBe(true);
    expect(writesFiles(read)).toBe(false);
    expect(writesFiles(entities)).toBe(false);
    expect(writesFiles({ ...write, annotations: { readOnlyHint: true } })).toBe(false);
    expect(writesFiles({ ...write, available: false })).toBe(false);
  });

  it('fits a tool server that writes files fully, a specialist bound to such a tool a quarter', () => {
    const writers = new Set([write.id]);
    expect(fileWriteFit(specialist('fs', 'files', { kind: 'mcp', tools: [write.id, read.id] }), writers)).toBe(1);
    expect(fileWriteFit(specialist('writer', 'docs', { tools: [write.id] }), writers)).toBe(0.25);
    expect(fileWriteFit(specialist('reader', 'reads', { kind: 'mcp', tools: [read.id] }), writers)).toBe(0);
  });
});
