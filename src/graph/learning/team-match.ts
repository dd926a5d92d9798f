/**
 * Whether a proven team found for a query may run it. The store finds the closest team by its
 * pattern (a bag of stems); that cannot tell "from Python to TypeScript" from "from TypeScript to
 * Python", "never port" from "port", or "should we port?" from "port". So the team is reused only
 * when the new query has the same shape (knowledge/query-shape.ts) as the query that taught the team's
 * plan: same mood, same negation, the same significant words in the same order. Anything else is
 * "unsure", and unsure plans normally: a cheaper wrong answer is worse than a correct expensive one.
 */
import { jaccard, queryPattern } from '../../knowledge/words.ts';
import type { TeamConfig } from '../../knowledge/store.ts';
import type { TeamMatch } from '../run/events.ts';
import { queryShape, shapeDifference } from '../../knowledge/query-shape.ts';

/** Judges the closest proven team for `query`. */
export function judgeTeam(query: string, team: TeamConfig): TeamMatch {
  const base = { teamConfigId: team.id, pattern: team.pattern, similarity: jaccard(queryPattern(query), team.pattern) };
  const taughtBy = team.plan.taughtBy;
  if (taughtBy === undefined) {
    return {
      ...base,
      reused: false,
      why: 'the team does not record the query that taught it (learnt before reuse compared queries)',
    };
  }
  const difference = shapeDifference(queryShape(taughtBy), queryShape(query));
  if (difference) return { ...base, reused: false, why: difference };
  return { ...base, reused: true, why: 'same words in the same order, same mood and negation' };
}
