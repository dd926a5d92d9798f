/**
 * memoryNote: an earlier run as a prompt shows it — why it is there (the words its request shares with
 * this one), how it ended, its request and answer, and no run id. The store's memory window keeps only
 * the first MEMORY_ANSWER_CHARS of an answer (answerChars on the hit says how long it was), and the note
 * reads the same as when it cut the whole answer itself. withHistoryThenMemory puts it after the thread.
 */
import { describe, expect, it } from 'vitest';
import { memoryNote, withHistoryThenMemory } from '../../../src/graph/prompting/memory-note.ts';
import { MEMORY_ANSWER_CHARS } from '../../../src/knowledge/run-memory.ts';
import type { MemoryHit } from '../../../src/knowledge/store.ts';

const whole = `First line of the answer.\n${'More of the answer, word after word. '.repeat(40)}The end.`;
const hit: Omit<MemoryHit, 'answer'> = {
  runId: 'run-4711',
  query: 'How do I rotate the Postgres password?',
  score: 0.9,
  status: 'completed',
  relevance: 0.8,
  sharedTerms: ['postgres', 'password'],
};

describe('memoryNote', () => {
  it('says the same of an answer cut by the store as of the whole answer', () => {
    const fromWhole = memoryNote([{ ...hit, answer: whole }]);
    const fromCut = memoryNote([{ ...hit, answer: whole.slice(0, MEMORY_ANSWER_CHARS), answerChars: whole.length }]);
    expect(fromCut).toBe(fromWhole);
    expect(fromCut).toContain(`of ${whole.length} characters not shown`);
  });

  it('says why each run is there and how it ended, without its run id', () => {
    const note = memoryNote([
      { ...hit, answer: 'Short.' },
      { ...hit, answer: 'Nothing.', status: 'failed', score: null, sharedTerms: ['rotate'] },
    ]);
    expect(note).toContain(
      'An earlier run on a similar request (shared terms: postgres, password). It completed, and the verifier scored it 0.9 of 1.',
    );
    expect(note).toContain('(shared terms: rotate). It ended failed.');
    expect(note).toContain('Request: How do I rotate the Postgres password?');
    expect(note).toContain('Answer: Short.');
    expect(note).not.toContain('cut here');
    expect(note).not.toContain('run-4711');
  });

  it('is empty without hits', () => {
    expect(memoryNote([])).toBe('');
    expect(memoryNote(undefined)).toBe('');
  });
});

describe('withHistoryThenMemory', () => {
  const history = {
    messages: [
      { role: 'user' as const, content: 'First turn' },
      { role: 'assistant' as const, content: 'First answer' },
    ],
    omitted: 0,
  };
  const memory = [{ ...hit, answer: 'Rotate it with ALTER ROLE.' }];

  it('puts the memory after the thread, in a system message of its own', () => {
    const messages = withHistoryThenMemory('You are Parley.', history, memory);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'system']);
    expect(messages[0]!.content).toBe('You are Parley.');
    expect(messages[3]!.content).toMatch(/^Earlier runs of this user on similar requests/);
  });

  it('keeps one system message when there is no thread or no memory', () => {
    const alone = withHistoryThenMemory('You are Parley.', { messages: [], omitted: 0 }, memory);
    expect(alone).toHaveLength(1);
    expect(alone[0]!.content).toContain('Rotate it with ALTER ROLE.');
    expect(withHistoryThenMemory('You are Parley.', history, []).map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
    ]);
  });
});
