import { describe, expect, it } from 'vitest';
import { buildHistory, historyNote } from '../../../src/graph/threads/thread-history.ts';
import type { ThreadTurn } from '../../../src/store/threads/types.ts';

const turn = (n: number, extra: Partial<ThreadTurn> = {}): ThreadTurn => ({
  runId: `r${n}`,
  at: n,
  protocol: 'sse',
  user: `question ${n}`,
  answer: `answer ${n}`,
  status: 'completed',
  ...extra,
});
const roomy = { tokens: 100_000, recentTurns: 4 };

describe('buildHistory', () => {
  it('gives stored turns as user/assistant pairs, oldest first, with the steps that ran', () => {
    const steps = [{ id: 's1', specialist: 'web', status: 'succeeded', summary: 'found the port is 8787' }];
    const h = buildHistory({ turns: [turn(1, { steps }), turn(2)] }, undefined, roomy);
    expect(h.omitted).toBe(0);
    expect(h.messages).toEqual([
      { role: 'user', content: 'question 1' },
      { role: 'assistant', content: 'answer 1\n[steps run: s1 (web) succeeded: found the port is 8787]' },
      { role: 'user', content: 'question 2' },
      { role: 'assistant', content: 'answer 2' },
    ]);
  });

  it('drops sent messages that resend stored turns, and puts the others first', () => {
    const sent = [
      { role: 'system' as const, content: 'Context: the user is on Linux' },
      { role: 'user' as const, content: 'question 1' },
      { role: 'assistant' as const, content: ' answer 1 ' },
    ];
    const h = buildHistory({ turns: [turn(1)] }, sent, roomy);
    expect(h.messages).toEqual([
      { role: 'system', content: 'Context: the user is on Linux' },
      { role: 'user', content: 'question 1' },
      { role: 'assistant', content: 'answer 1' },
    ]);
  });

  it('without a stored thread gives the sent messages as they are', () => {
    const sent = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: 'hello' },
    ];
    expect(buildHistory(undefined, sent, roomy)).toEqual({ messages: sent, omitted: 0 });
  });

  it('keeps the recent turns verbatim and summarises older ones', () => {
    const long = 'x'.repeat(1000);
    const turns = [1, 2, 3].map((n) => turn(n, { user: `${n}${long}`, answer: `${n}${long}` }));
    const h = buildHistory({ turns }, undefined, { tokens: 100_000, recentTurns: 1 });
    const lengths = h.messages.map((m) => m.content.length);
    // Turns 1 and 2 summarised (user 200 chars + ellipsis, answer 300 + ellipsis), turn 3 verbatim.
    expect(lengths).toEqual([201, 301, 201, 301, 1001, 1001]);
    expect(h.messages[4]!.content).toBe(`3${long}`);
  });

  it('summarises a recent turn that does not fit, then cuts what no longer fits, counting it', () => {
    const long = 'y'.repeat(4000);
    const turns = [turn(1), turn(2), turn(3, { answer: long })];
    // Summaries of turns 3 and 2 take (10+301)/4 + (10+8)/4 → 78 + 5 tokens; turn 1 does not fit in what is left.
    const h = buildHistory({ turns }, undefined, { tokens: 85, recentTurns: 4 });
    expect(h.omitted).toBe(1);
    expect(h.messages.map((m) => m.content)).toEqual(['question 2', 'answer 2', 'question 3', `${'y'.repeat(300)}…`]);
  });

  it('says when a turn ended without an answer, and how many images came', () => {
    const h = buildHistory({ turns: [turn(1, { answer: undefined, status: 'failed', images: 2 })] }, undefined, roomy);
    expect(h.messages).toEqual([
      { role: 'user', content: 'question 1 [2 images attached]' },
      { role: 'assistant', content: '(no answer: the run ended failed)' },
    ]);
  });

  it('with a zero budget gives nothing and counts every unit left out', () => {
    expect(buildHistory({ turns: [turn(1), turn(2)] }, undefined, { tokens: 0, recentTurns: 4 })).toEqual({
      messages: [],
      omitted: 2,
    });
  });
});

describe('historyNote', () => {
  it('renders the history for a system message, saying how much was left out', () => {
    const note = historyNote({
      messages: [
        { role: 'user', content: 'question 1' },
        { role: 'assistant', content: 'answer 1' },
      ],
      omitted: 3,
    });
    expect(note).toContain('(3 earlier messages left out)\nUser: question 1\nParley: answer 1');
    expect(historyNote({ messages: [], omitted: 0 })).toBe('');
  });
});
