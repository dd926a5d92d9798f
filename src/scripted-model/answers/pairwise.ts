/**
 * The `pairwise_judgement` answer (`parley eval --versus direct`, docs/evals.md): which of two answers
 * covers more of what matters — the terms the <parley:criteria> quote in double quotes, or, with none,
 * the query's words of four letters or more — decided as a judge would, by content only:
 *
 * - the answer containing more of those terms (case-insensitive) wins;
 * - two identical answers are a tie;
 * - two different answers covering as much prefer A: a first-position bias, on purpose, like many real
 *   judges show, so the both-orders rule has something to cancel (the orders disagree: a tie).
 */
import { words, type RequestContext } from '../context.ts';

type Winner = 'A' | 'B' | 'tie';

function termsOf(ctx: RequestContext): { terms: string[]; from: string } {
  const quoted = [...(ctx.criteria ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!.toLowerCase());
  if (quoted.length) return { terms: [...new Set(quoted)], from: 'the terms the criteria quote' };
  return { terms: [...new Set(words(ctx.query).filter((w) => w.length >= 4))], from: "the query's words" };
}

export function pairwiseJudgementAnswer(ctx: RequestContext): { comparison: string; winner: Winner; reason: string } {
  const a = (ctx.answerA ?? '').toLowerCase();
  const b = (ctx.answerB ?? '').toLowerCase();
  const { terms, from } = termsOf(ctx);
  const covered = (text: string) => terms.filter((t) => text.includes(t)).length;
  const [ca, cb] = [covered(a), covered(b)];
  const comparison = `Answer A mentions ${ca} and answer B ${cb} of the ${terms.length} ${from} (${terms.map((t) => `"${t}"`).join(', ')}).`;
  if (a.trim() === b.trim()) return { comparison, winner: 'tie', reason: 'The two answers are the same text.' };
  if (ca !== cb) {
    const winner = ca > cb ? 'A' : 'B';
    return { comparison, winner, reason: `Answer ${winner} covers more of ${from}.` };
  }
  return { comparison, winner: 'A', reason: `Both cover as much of ${from}; the scripted judge prefers the first.` };
}
