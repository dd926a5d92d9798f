/**
 * Whether a proven team found for a query may run it. The store finds the closest team by its
 * pattern (a bag of stems); that cannot tell "from Python to TypeScript" from "from TypeScript to
 * Python", "never port" from "port", or "should we port?" from "port". So the team is reused only
 * when the new query has the same shape (query-shape.ts) as the query that taught the team's
 * plan: same mood, same negation, the same significant words in the same order. Anything else is
 * "unsure", and unsure plans normally: a cheaper wrong answer is worse than a correct expensive one.
 */
import { jaccard, queryPattern } from '../../knowledge/registry.ts';
import type { TeamConfig } from '../../knowledge/store.ts';
import type { TeamMatch } from '../events.ts';
import { negationsOf, queryShape, type QueryShape } from './query-shape.ts';

const keys = (shape: QueryShape) => shape.words.map((w) => w.key);

/** Words of `a` not in `b`, counting repeats. */
function missing(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((w) => {
    const i = left.indexOf(w);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

/** The first reason the two shapes are different tasks, or undefined when they are the same. */
export function shapeDifference(taught: QueryShape, asked: QueryShape): string | undefined {
  const article = (mood: string) => (mood === 'instruction' ? 'an instruction' : 'a question');
  if (taught.mood !== asked.mood) return `${article(asked.mood)} where the team was taught by ${article(taught.mood)}`;
  const [was, is] = [negationsOf(taught), negationsOf(asked)];
  if (was.join(' ') !== is.join(' ')) {
    const added = missing(is, was);
    const dropped = missing(was, is);
    return `negation differs (${[...added.map((w) => `"${w}" added`), ...dropped.map((w) => `"${w}" dropped`)].join(', ') || 'moved'})`;
  }
  const [a, b] = [keys(taught), keys(asked)];
  const added = missing(b, a);
  const dropped = missing(a, b);
  if (added.length || dropped.length) {
    const list = [...added.map((w) => `+${w}`), ...dropped.map((w) => `-${w}`)].join(' ');
    return `words differ (${list}): another entity, language or stack`;
  }
  if (a.join(' ') !== b.join(' ')) return 'the same words in another order (direction or roles may differ)';
  return undefined;
}

/** Judges the closest proven team for `query`. */
export function judgeTeam(query: string, team: TeamConfig): TeamMatch {
  const base = { teamConfigId: team.id, pattern: team.pattern, similarity: jaccard(queryPattern(query), team.pattern) };
  const taughtBy = team.plan.taughtBy;
  if (taughtBy === undefined) {
    return { ...base, reused: false, why: 'the team does not record the query that taught it (learnt before reuse compared queries)' };
  }
  const difference = shapeDifference(queryShape(taughtBy), queryShape(query));
  if (difference) return { ...base, reused: false, why: difference };
  return { ...base, reused: true, why: 'same words in the same order, same mood and negation' };
}
