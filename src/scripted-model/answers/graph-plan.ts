/**
 * The `graph_plan` answer: steps for the candidate specialists whose id, description and domains
 * share the most words with the query (1 to 4 of them), or exactly [[steps:N]], optionally [[chain]]ed;
 * [[stepmodel:NAME]] names a model on every step; [[planspecialist:ID]] names specialist ID on every step;
 * `changes` is true for work that writes (CHANGING) or names a tool by directive.
 */
import { words, type RequestContext, type SpecialistCandidate } from '../context.ts';

const STOP = new Set(
  'a an and are as at be by can do does for from how i in is it me my of on or our please the this to we what when where which who why will with you your'.split(
    ' ',
  ),
);

export function ranked(ctx: RequestContext): { specialist: SpecialistCandidate; score: number }[] {
  const query = new Set(words(ctx.query).filter((w) => !STOP.has(w)));
  const overlap = (s: SpecialistCandidate) => {
    const own = new Set(words(`${s.id} ${s.description} ${s.domains.join(' ')}`).filter((w) => !STOP.has(w)));
    let n = 0;
    for (const w of query) if (own.has(w) || own.has(w.replace(/s$/, ''))) n++;
    return n;
  };
  return (ctx.specialists ?? [])
    .map((specialist) => ({ specialist, score: overlap(specialist) }))
    .sort((a, b) => b.score - a.score);
}

export interface ScriptedPlan {
  rationale: string;
  steps: {
    id: string;
    specialist: string;
    objective: string;
    dependsOn: string[];
    phase: 'research' | 'execution';
    model?: string;
    manager?: boolean;
    changes: boolean;
  }[];
}

/**
 * Work that changes things (PlanStep.changes): a query that asks to write, edit or save, or that carries a
 * [[tool:…]] directive (the tool may write; tests name it to see it called, so the step is offered it).
 */
const CHANGING =
  /\b(write|writes|save|saves|create|creates|edit|edits|update|updates|delete|deletes|move|moves|rename|fix|append|record|remember|store|add)\b/i;

export function graphPlanAnswer(ctx: RequestContext): ScriptedPlan {
  const candidates = ranked(ctx);
  const matching = candidates.filter((c) => c.score > 0).slice(0, 4);
  const count = ctx.directives.steps ?? Math.max(1, matching.length);
  const pool = (ctx.directives.steps ? candidates : matching.length ? matching : candidates.slice(0, 1)).map(
    (c) => c.specialist,
  );
  const fallback: SpecialistCandidate = { id: 'default', description: '', domains: [] };
  const steps: ScriptedPlan['steps'] = [];
  for (let i = 0; i < count; i++) {
    const specialist = pool.length ? pool[i % pool.length]! : fallback;
    const id = `s${i + 1}`;
    const prev = steps.at(-1);
    const chained = ctx.directives.chain && prev !== undefined;
    steps.push({
      id,
      specialist: ctx.directives.planSpecialist ?? specialist.id,
      objective: chained
        ? `${ctx.query} (${specialist.id}, building on {{${prev.id}.result}})`
        : `${ctx.query} (${specialist.id})`,
      dependsOn: chained ? [prev.id] : [],
      phase: specialist.domains.some((d) => d.toLowerCase() === 'research') ? 'research' : 'execution',
      ...(ctx.directives.stepModel ? { model: ctx.directives.stepModel } : {}),
      changes: ctx.directives.tools.length > 0 || CHANGING.test(ctx.query),
      // Hybrid mode: the first step is a manager that grows its own team.
      ...(ctx.mode === 'hybrid' && i === 0 ? { manager: true } : {}),
    });
  }
  const names = [...new Set(steps.map((s) => s.specialist))].join(', ');
  return {
    rationale: `Scripted plan: ${names} ${ctx.directives.steps ? `(${count} steps requested)` : 'share the most words with the query'}.`,
    steps,
  };
}
