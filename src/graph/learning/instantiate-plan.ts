/**
 * Instantiates a reused team's plan for a new query: wherever an objective quotes the query that
 * taught the team, it quotes the new query instead, so a reused step never runs another query's
 * text. The rest of an objective (the planner's own words, `{{step.result}}` references) is kept:
 * judgeTeam only allows reuse between queries of the same shape, so any word the objective took
 * from the old query is the same term, in the same role, in the new one.
 */
import type { GraphPlan } from '../planning/graph-plan.ts';
import type { TeamPlan } from '../../knowledge/store.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One objective written for `asked` from the objective `objective` written for `taught`. */
export function instantiateObjective(objective: string, taught: string, asked: string): string {
  // Matched case-insensitively, as whole words, with or without the query's closing punctuation.
  const core = taught.trim().replace(/[\s.!?;:,]+$/u, '');
  if (!core) return objective;
  const quoted = new RegExp(`(?<![\\p{L}\\p{N}])${escape(core)}(?:[.!?]+|(?![\\p{L}\\p{N}]))`, 'giu');
  return objective.replace(quoted, () => asked.trim());
}

/** The team's plan for the new query (a copy; the stored team is not changed). */
export function instantiatePlan(plan: TeamPlan, asked: string): GraphPlan {
  const { taughtBy, ...rest } = plan;
  if (taughtBy === undefined) throw new Error('a team plan without the query that taught it cannot be instantiated');
  return {
    ...rest,
    steps: rest.steps.map((s) => ({ ...s, objective: instantiateObjective(s.objective, taughtBy, asked) })),
  };
}
