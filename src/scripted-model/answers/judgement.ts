/**
 * The `judgement` answer (an evaluation suite's judge, docs/evals.md): the terms the rubric quotes in
 * double quotes are what a good answer must mention; the score is the share of them the answer
 * contains (case-insensitive). A rubric that quotes nothing scores any non-empty answer 0.9.
 */
import type { RequestContext } from '../context.ts';

export function judgementAnswer(ctx: RequestContext): { score: number; reason: string } {
  const answer = (ctx.answer ?? '').toLowerCase();
  const terms = [...(ctx.rubric ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  if (terms.length === 0)
    return answer.trim()
      ? { score: 0.9, reason: 'The answer is there and the rubric names no required term.' }
      : { score: 0, reason: 'The answer is empty.' };
  const missing = terms.filter((t) => !answer.includes(t.toLowerCase()));
  const score = Math.round(((terms.length - missing.length) / terms.length) * 100) / 100;
  return {
    score,
    reason: missing.length
      ? `The answer does not mention ${missing.map((t) => `"${t}"`).join(', ')}.`
      : `The answer mentions every required term (${terms.map((t) => `"${t}"`).join(', ')}).`,
  };
}
