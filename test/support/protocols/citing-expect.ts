/** What the text a client is given looks like with `citations: "numbered"` and without (citing.ts's READ_QUERY). */
import { expect } from 'vitest';
import { STEP_IDS } from './citing.ts';

/** The text a client was given cites [1] and ends with the list naming the file, and names no step. */
export function expectNumbered(text: string): void {
  expect(text).toMatch(/ \[1\]\n/);
  expect(text.endsWith('\n\nReferences:\n[1] standup.md (file)')).toBe(true);
  expect(text).not.toMatch(STEP_IDS);
}

/** The text a client was given without the option: no [n], no list, no step. */
export function expectUncited(text: string): void {
  expect(text.length).toBeGreaterThan(0);
  expect(text).not.toMatch(/\[\d+\]|References:/);
  expect(text).not.toMatch(STEP_IDS);
}
