/**
 * What a step read, by names a person knows (issue 43): the files and pages a tool call's arguments name,
 * else the tool; and the numbered references an answer with citations cites — never a step id.
 */
import { describe, expect, it } from 'vitest';
import { addNamed, namedSourcesOfCall, namedSourcesOfPeer } from '../../../src/graph/specialists/named-sources.ts';
import { referencesOf, referencesText } from '../../../src/graph/nodes/answer-references.ts';
import type { StepOutcome } from '../../../src/graph/run/step-outcome.ts';
import type { NamedSource } from '../../../src/graph/run/events.ts';

describe('named sources', () => {
  it('names the files and pages a call names, else the tool', () => {
    expect(namedSourcesOfCall('filesystem/read_text_file', { path: '/data/workspace/notes.md' })).toEqual([
      { kind: 'file', title: 'notes.md', uri: '/data/workspace/notes.md' },
    ]);
    expect(namedSourcesOfCall('fetch/fetch', { url: 'https://example.org/a' })).toEqual([
      { kind: 'web', title: 'https://example.org/a', uri: 'https://example.org/a' },
    ]);
    expect(namedSourcesOfCall('filesystem/read_multiple_files', { paths: ['a/x.md', 'b/y.md'] })).toHaveLength(2);
    expect(namedSourcesOfCall('memory/read_graph', {})).toEqual([{ kind: 'tool', title: 'memory/read_graph' }]);
  });

  it('names a remote agent by its name, with the pages it linked', () => {
    expect(namedSourcesOfPeer('Weather agent', 'http://peer', ['https://w.example/today', 'a2a:x'])).toEqual([
      { kind: 'agent', title: 'Weather agent', uri: 'http://peer' },
      { kind: 'web', title: 'https://w.example/today', uri: 'https://w.example/today' },
    ]);
  });

  it('lists a source once', () => {
    const list: NamedSource[] = [];
    addNamed(list, namedSourcesOfCall('fs/read', { path: 'a.md' }));
    addNamed(list, namedSourcesOfCall('fs/read', { path: 'a.md' }));
    expect(list).toHaveLength(1);
  });
});

describe('references', () => {
  const step = (stepId: string, named: NamedSource[]): StepOutcome => ({
    stepId,
    specialist: 'reader',
    status: 'succeeded',
    objective: '',
    output: '',
    lineage: {
      specialist: 'reader',
      kind: 'prompt',
      startedAt: '',
      finishedAt: '',
      durationMs: 0,
      attempt: 1,
      toolCalls: [],
      sources: [],
      named,
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 },
    },
  });

  it('numbers each named source once in step order, with the steps that read it as data', () => {
    const a = { kind: 'file' as const, title: 'a.md', uri: 'w/a.md' };
    const b = { kind: 'web' as const, title: 'https://b', uri: 'https://b' };
    const refs = referencesOf([step('s1', [a]), step('s2', [a, b]), step('s3', [])]);
    expect(refs.list).toEqual([
      { n: 1, ...a, stepIds: ['s1', 's2'] },
      { n: 2, ...b, stepIds: ['s2'] },
    ]);
    expect([...refs.byStep]).toEqual([
      ['s1', [1]],
      ['s2', [1, 2]],
    ]);
    // The list the answer ends with: names, no step id, no path.
    expect(referencesText(refs.list)).toBe('\n\nReferences:\n[1] a.md (file)\n[2] https://b');
    expect(referencesText([])).toBe('');
  });
});
