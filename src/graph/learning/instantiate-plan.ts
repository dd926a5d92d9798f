/**
 * Instantiates a reused team's plan for a new query: the team's objectives are templates whose
 * slots are the query that taught them and its significant words, filled from the new query. So a
 * reused step never runs another query's objective: where the old objective quoted the old query it
 * now quotes the new one, and each word it took from the old query is the new query's word at the
 * same position. judgeTeam only allows reuse between queries of the same shape, so the words align
 * one to one (they differ in case and inflection, and the filler around them).
 */
import type { GraphPlan } from '../plan.ts';
import type { TeamPlan } from '../../knowledge/store.ts';
import { queryShape } from './query-shape.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One objective written for `asked` from the template `objective` made for `taught`. */
export function instantiateObjective(objective: string, taught: string, asked: string): string {
  const taughtWords = queryShape(taught).words;
  const askedWords = queryShape(asked).words;
  const slots = new Map<string, string>();
  taughtWords.forEach((w, i) => {
    const to = askedWords[i];
    if (to && !slots.has(w.surface.toLowerCase())) slots.set(w.surface.toLowerCase(), to.surface);
  });
  const fillWords = (text: string) =>
    text
      // {{step.result}} references are plan structure, not query words.
      .split(/(\{\{[^}]*\}\})/)
      .map((piece) => (piece.startsWith('{{') ? piece : piece.replace(/[\p{L}\p{N}]+/gu, (word) => slots.get(word.toLowerCase()) ?? word)))
      .join('');
  // Where the objective quotes the old query whole, it quotes the new one whole.
  const whole = taught.trim();
  const parts = whole ? objective.split(new RegExp(escape(whole), 'i')) : [objective];
  return parts.map(fillWords).join(asked.trim());
}

/** The team's plan for the new query (a copy; the stored team is not changed). */
export function instantiatePlan(plan: TeamPlan, asked: string): GraphPlan {
  const { taughtBy, ...rest } = plan;
  if (taughtBy === undefined) throw new Error('a team plan without the query that taught it cannot be instantiated');
  return { ...rest, steps: rest.steps.map((s) => ({ ...s, objective: instantiateObjective(s.objective, taughtBy, asked) })) };
}
