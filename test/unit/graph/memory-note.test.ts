/**
 * memoryNote: an earlier run's answer as a prompt shows it. The store's memory window keeps only the
 * first MEMORY_ANSWER_CHARS of an answer (answerChars on the hit says how long it was), and the note reads
 * the same as when it cut the whole answer itself.
 */
import { describe, expect, it } from 'vitest';
import { memoryNote } from '../../../src/graph/prompting/prompts.ts';
import { MEMORY_ANSWER_CHARS } from '../../../src/knowledge/run-memory.ts';

const whole = `First line of the answer.\n${'More of the answer, word after word. '.repeat(40)}The end.`;
const hit = { runId: 'r1', query: 'How?', score: 0.9, relevance: 1 };

describe('memoryNote', () => {
  it('says the same of an answer cut by the store as of the whole answer', () => {
    const fromWhole = memoryNote([{ ...hit, answer: whole }]);
    const fromCut = memoryNote([{ ...hit, answer: whole.slice(0, MEMORY_ANSWER_CHARS), answerChars: whole.length }]);
    expect(fromCut).toBe(fromWhole);
    expect(fromCut).toContain(`of ${whole.length} characters not shown`);
  });

  it('shows a short answer whole, with no note', () => {
    expect(memoryNote([{ ...hit, answer: 'Short.' }])).toContain('A: Short.');
    expect(memoryNote([{ ...hit, answer: 'Short.' }])).not.toContain('cut here');
  });
});
