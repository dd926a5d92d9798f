/**
 * What a council run's answer must be (issue 43): advice for the person, not the verdict record. The
 * verdict (consensus, dissent, confidence, rankings) stays data, on the events and protocol data parts.
 */
import { expect } from 'vitest';
import type { CouncilVerdict } from '../../src/graph/run/events.ts';

/** Sections of the verdict record that must not reach the person as lines of the answer. */
const RECORD_LINE = /^\s*(?:[-*#>]\s*)*\**(Consensus|Dissent|Blind spots|Confidence)\**\s*:/im;

/** The answer reads as advice: text, and no line begins "Consensus:", "Dissent:", "Blind spots:" or "Confidence:". */
export function expectAdvice(answer: string | undefined): void {
  expect(answer?.trim().length).toBeGreaterThan(0);
  expect(answer).not.toMatch(RECORD_LINE);
  // No bare confidence figure ("0.70") and no council bookkeeping (labels, reviewers) in what the person reads.
  expect(answer).not.toMatch(/\b0\.\d\d\b|\b(?:[Aa]nswer|[Rr]eviewer|[Aa]dvisor) [A-E1-5]\b/);
}

/** The verdict as data: the decision fields with a numeric confidence and its reason, and every reviewer's ranking. */
export function expectVerdictData(verdict: Partial<CouncilVerdict> | undefined): void {
  expect(verdict).toMatchObject({
    recommendation: expect.any(String),
    consensus: expect.any(String),
    dissent: expect.any(String),
    confidence: expect.any(Number),
    confidenceReason: expect.any(String),
    comparison: expect.any(String),
  });
  expect(verdict!.rankings).toHaveLength(3);
  for (const r of verdict!.rankings!) expect(r.ranking).toHaveLength(5);
}
