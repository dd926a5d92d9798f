/** The `route` answer: direct for greetings and very short queries, council for decisions, plan otherwise. */
import { words, type RequestContext } from '../context.ts';

const GREETING = /^(hi|hello|hey|howdy|thanks|thank you|good (morning|afternoon|evening)|yo|hola|bonjour)\b/i;
const DECISION = /\b(should (we|i|you|our|the)|which is better|decide between|trade-?offs? between|pros and cons)\b/i;

export function routeAnswer(ctx: RequestContext): { route: 'direct' | 'plan' | 'council'; reason: string } {
  if (ctx.directives.route)
    return { route: ctx.directives.route, reason: `forced by [[route:${ctx.directives.route}]]` };
  const q = ctx.query.trim();
  if (GREETING.test(q)) return { route: 'direct', reason: 'a greeting needs no plan' };
  if (DECISION.test(q)) return { route: 'council', reason: 'a decision benefits from several perspectives' };
  if (words(q).length <= 3) return { route: 'direct', reason: 'a very short query is answered directly' };
  return { route: 'plan', reason: 'the query needs specialists' };
}
