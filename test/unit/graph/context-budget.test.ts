/** The pure parts of context budgets: context windows per model, splitting, and a cut that says so. */
import { describe, expect, it } from 'vitest';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW } from '../../../src/llm/context-windows.ts';
import { splitToFit } from '../../../src/graph/prompting/context-budget.ts';
import { markedCut } from '../../../src/graph/prompting/prompts.ts';

describe('contextWindowOf', () => {
  it('takes the setting first, then the known figure for the model id, else the default', () => {
    expect(contextWindowOf({ contextWindow: 4096 }, 'gpt-4o')).toBe(4096);
    expect(contextWindowOf({}, 'gpt-4o-mini')).toBe(128_000);
    expect(contextWindowOf({}, 'openai/gpt-4.1-mini')).toBe(1_047_576);
    expect(contextWindowOf({}, 'claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowOf({}, 'o3-mini')).toBe(200_000);
    expect(contextWindowOf({}, 'llama3.1:8b')).toBe(128_000);
    expect(contextWindowOf({}, 'scripted')).toBe(DEFAULT_CONTEXT_WINDOW);
  });
});

describe('splitToFit', () => {
  it('splits at line ends into parts no longer than the limit, losing nothing', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i} of the step output`).join('\n');
    const parts = splitToFit(text, 200);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(200);
    expect(parts.join('')).toBe(text);
    expect(parts.slice(0, -1).every((p) => p.endsWith('\n'))).toBe(true);
  });

  it('keeps a short text whole', () => {
    expect(splitToFit('short', 100)).toEqual(['short']);
  });
});

describe('markedCut', () => {
  it('leaves a text that fits alone', () => {
    expect(markedCut('all of it', 100)).toBe('all of it');
  });

  it('cuts at a line end and says how much is not shown', () => {
    const text = `${'a'.repeat(60)}\n${'b'.repeat(60)}\n${'c'.repeat(60)}`;
    const cut = markedCut(text, 100);
    expect(cut.startsWith('a'.repeat(60))).toBe(true);
    expect(cut).not.toContain('b');
    expect(cut).toContain(`[cut here: ${text.length - 60} of ${text.length} characters not shown]`);
  });

  it('never leaves a code block open: it closes it and says the cut is inside one', () => {
    const text = [
      'Here is the fix:',
      '```ts',
      ...Array.from({ length: 40 }, (_, i) => `const x${i} = ${i};`),
      '```',
    ].join('\n');
    const cut = markedCut(text, 200);
    expect(cut).toMatch(/```\n\[cut here: \d+ of \d+ characters not shown, inside a code block\]$/);
    expect((cut.match(/```/g) ?? []).length % 2).toBe(0);
  });
});
