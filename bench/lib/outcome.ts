/** Fingerprints a run's outcome so the harness can assert every contender produced the same answer. */
import { createHash } from 'node:crypto';
import type { RunOutcome } from './workload.ts';

export interface OutcomeCheck {
  fingerprint: string;
  answerPreview: string;
  steps: number;
  allSucceeded: boolean;
  score: number;
}

export function checkOutcome(outcome: RunOutcome): OutcomeCheck {
  const canonical = JSON.stringify({
    answer: outcome.answer,
    steps: outcome.steps.map((s) => [s.id, s.specialist, s.status, s.output]),
  });
  return {
    fingerprint: createHash('sha256').update(canonical).digest('hex').slice(0, 16),
    answerPreview: outcome.answer.slice(0, 160),
    steps: outcome.steps.length,
    allSucceeded: outcome.steps.every((s) => s.status === 'succeeded'),
    score: outcome.score,
  };
}
