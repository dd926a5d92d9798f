import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../../src/graph/nodes/answer-edits.ts';

describe('applyEdits: an answer revised by the passages the editor names', () => {
  const answer = 'Use logical replication.\n\nCut over at night.\n\nKeep the old primary for a week.';

  it('replaces each passage found once, each in the text the edits before it left', () => {
    const result = applyEdits(answer, [
      { find: 'Cut over at night.', replace: 'Cut over at night (Postgres 13 or later).' },
      { find: '(Postgres 13 or later)', replace: '(needs Postgres 13 or later)' },
      { find: 'Keep the old primary for a week.', replace: '' },
    ]);
    expect(result).toEqual({
      ok: true,
      text: 'Use logical replication.\n\nCut over at night (needs Postgres 13 or later).\n\n',
    });
  });

  it('no edits: the answer as it was', () => {
    expect(applyEdits(answer, [])).toEqual({ ok: true, text: answer });
  });

  it('a passage not in the answer, found twice, or empty: nothing applied, the passages named', () => {
    const twice = applyEdits('a. b. a.', [
      { find: 'b.', replace: 'B.' },
      { find: 'a.', replace: 'A.' },
    ]);
    expect(twice).toEqual({ ok: false, unmatched: ['a.'] });
    expect(applyEdits(answer, [{ find: 'not there', replace: 'x' }])).toEqual({ ok: false, unmatched: ['not there'] });
    expect(applyEdits(answer, [{ find: '', replace: 'x' }])).toEqual({ ok: false, unmatched: [''] });
    // Overlapping occurrences count as two.
    expect(applyEdits('aaa', [{ find: 'aa', replace: 'b' }])).toEqual({ ok: false, unmatched: ['aa'] });
  });
});
