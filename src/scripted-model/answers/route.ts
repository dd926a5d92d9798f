/** The `route` answer: direct for greetings and very short queries, council for decisions, plan otherwise. */
import { words, type RequestContext } from '../context.ts';

const GREETING = /^(hi|hello|hey|howdy|thanks|thank you|good (morning|afternoon|evening)|yo|hola|bonjour)\b/i;
const DECISION = /\b(should (we|i|you|our|the)|which is better|decide between|trade-?offs? between|pros and cons)\b/i;

/** Open-ended work whose parts are a first finding ("research the top 3 … and compare them"). */
const OPEN_ENDED = /\b(top|leading|biggest|best)\s+(\d+|three|five|ten)\b[\s\S]*\b(compare|comparison|rank)\b/i;

export function routeAnswer(ctx: RequestContext): {
  route: 'direct' | 'plan' | 'council' | 'dynamic';
  reason: string;
} {
  if (ctx.directives.route)
    return { route: ctx.directives.route, reason: `forced by [[route:${ctx.directives.route}]]` };
  const d = ctx.directives;
  if (d.spawn !== undefined || d.depth !== undefined || d.message !== undefined || d.deadlock)
    return { route: 'dynamic', reason: 'a dynamic-team directive asks for agents that spawn agents' };
  const q = ctx.query.trim();
  if (OPEN_ENDED.test(q))
    return {
      route: 'dynamic',
      reason: 'the parts of this task are a first finding, so a team grows as it learns them',
    };
  if (GREETING.test(q)) return { route: 'direct', reason: 'a greeting needs no plan' };
  if (DECISION.test(q)) return { route: 'council', reason: 'a decision benefits from several perspectives' };
  if (words(q).length <= 3) return { route: 'direct', reason: 'a very short query is answered directly' };
  return { route: 'plan', reason: 'the query needs specialists' };
}
