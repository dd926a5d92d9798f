/**
 * Planning shared by the router (first plan) and the planner node (re-plan): LLM planning over the
 * top-k candidates with their self-model figures, validated, re-planned once with the errors.
 */
import {
  COUNCIL_SPECIALIST,
  MANAGER_SPECIALIST,
  GraphPlanSchema,
  INLINED_RESULTS_NOTE,
  normalizePhases,
  validatePlan,
  type GraphPlan,
} from './graph-plan.ts';
import { block, specialistsBlock } from './prompts.ts';
import { emit, type EngineContext, type RunState } from './state.ts';
import type { PlanCause } from './events.ts';
import { historyNote } from './thread-history.ts';
import { userContent } from './user-content.ts';
import type { ChatMessage } from '../llm/types.ts';

const COUNCIL_ENTRY = {
  id: COUNCIL_SPECIALIST,
  description: 'Council of five advisors who debate a decision, review each other anonymously, and return a verdict',
  domains: ['decision', 'strategy'],
};

/** Queries that weigh a decision get the council offered as a step; others never see it (it costs 9 calls). */
const DECISION_WORDS =
  /\b(should|decide|decision|choose|choice|whether|trade-?offs?|pros and cons|recommend|strategy|versus|vs\.?)\b/i;

const PLANNER_SYSTEM = `You are Parley's planner. Build a GraphPlan: a DAG of steps, each given to ONE of the listed specialists.
Rules: unique step ids (letters, digits, _ and -); use only the listed specialist ids; "dependsOn" lists the ids a step needs;
an objective may quote a dependency's output as {{stepId.result}} and only of its dependencies; phase "research" for gathering
facts (runs first), "execution" for producing the answer. Prefer specialists with a good record (successRate, meanScore).
Independent steps run in parallel, so only add a dependency when a step truly needs another's output.`;

/** Hybrid mode: the planned skeleton's steps may be managers (docs/engine.md "Dynamic teams"). */
const HYBRID_NOTE = `\n\nHybrid mode: set "manager": true on a step whose parts cannot be known until it starts (for example
"compare the top 3 companies": which three is its first finding). A manager step spawns agents of its own as it learns.`;

/** Loads the available specialists once per run (ids are what plan validation checks against). */
export async function loadSpecialists(run: RunState, ctx: EngineContext): Promise<void> {
  if (run.specialists.size) return;
  run.specialists = await ctx.directory.get();
}

export function knownSpecialists(run: RunState): Set<string> {
  return new Set([...run.specialists.keys(), COUNCIL_SPECIALIST, MANAGER_SPECIALIST]);
}

/**
 * Stage 2: the top-k candidates, ranked by the store (relevance combined with the self-model).
 * When nothing matches the query's words, the planner still gets the first k available specialists.
 */
export async function retrieveCandidates(run: RunState, ctx: EngineContext): Promise<void> {
  const k = ctx.config.knowledge.topK;
  // Point candidates at the shared records, so a run does not keep its own copies.
  run.candidates = (await ctx.store.retrieveSpecialists(run.request.query, k)).map((c) => ({
    ...c,
    specialist: run.specialists.get(c.specialist.id) ?? c.specialist,
  }));
  if (run.candidates.length === 0) {
    run.candidates = [...run.specialists.values()]
      .slice(0, k)
      .map((specialist) => ({ specialist, relevance: 0, score: 0 }));
  }
}

export type PlanAttempt = { ok: true; plan: GraphPlan } | { ok: false; errors: string[] };

/**
 * Asks the planner model for a plan and validates it; an invalid plan is sent back once with its
 * errors. `learned` carries what the previous round taught (verifier feedback, step outcomes);
 * `complete` turns the model's plan into the plan to validate and adopt (a failure re-plan adds the
 * finished steps to it).
 */
export async function planWithModel(
  run: RunState,
  ctx: EngineContext,
  learned?: string,
  complete: (plan: GraphPlan) => GraphPlan = (plan) => plan,
): Promise<PlanAttempt> {
  const known = knownSpecialists(run);
  const extra = DECISION_WORDS.test(run.request.query) ? [COUNCIL_ENTRY] : [];
  // The plan may use only what the planner was shown (docs/engine.md, "Plan validation").
  const offered = new Set([...run.candidates.map((c) => c.specialist.id), ...extra.map((e) => e.id)]);
  const context = [
    block('query', run.request.query),
    ...(run.mode === 'hybrid' ? [block('mode', 'hybrid')] : []),
    specialistsBlock(run.candidates, extra),
    learned ? `What the previous attempt taught:\n${learned}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        PLANNER_SYSTEM + INLINED_RESULTS_NOTE + (run.mode === 'hybrid' ? HYBRID_NOTE : '') + historyNote(run.history),
    },
    { role: 'user', content: userContent(run, ctx, 'planner', context) },
  ];
  let errors: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    if (attempt === 2) {
      messages.push({
        role: 'user',
        content: `${context}\n\nThe previous plan was invalid:\n- ${errors.join('\n- ')}\nReturn a corrected plan.`,
      });
    }
    const { value } = await run.model.structured({
      role: 'planner',
      schemaName: 'graph_plan',
      schema: GraphPlanSchema,
      messages,
      signal: run.abort.signal,
    });
    const plan = complete(value);
    // Steps the completion added (finished steps carried over) were checked when first adopted.
    const carried = plan.steps.filter((s) => !value.steps.includes(s)).map((s) => s.specialist);
    errors = validatePlan(plan, known, carried.length ? new Set([...offered, ...carried]) : offered);
    if (errors.length === 0) return { ok: true, plan };
    ctx.logger.info('planner returned an invalid plan', { runId: run.id, attempt, errors });
  }
  return { ok: false, errors };
}

/**
 * Makes `plan` the run's current plan and announces it. Every step is pending except those kept from
 * an earlier round (run.kept: same specialist and objective, and every dependency kept too): their
 * result is carried over and they are never run again.
 */
export function adoptPlan(run: RunState, proposed: GraphPlan, replan?: PlanCause): void {
  const plan = normalizePhases(proposed);
  run.plan = plan;
  run.results = new Map();
  run.attempts = new Map();
  run.pending = new Set(plan.steps.map((s) => s.id));
  run.feedback = undefined;
  for (let grew = true; grew && run.kept?.size;) {
    grew = false;
    for (const step of plan.steps) {
      const kept = run.kept.get(keptKey(step));
      if (!kept || !run.pending.has(step.id) || step.dependsOn.some((d) => run.pending.has(d))) continue;
      run.results.set(step.id, { ...kept.outcome, stepId: step.id });
      run.pending.delete(step.id);
      grew = true;
    }
  }
  emit(run, { type: 'plan.ready', plan, round: run.planRound, ...replan });
}

/** A step is the same work as an earlier one when the specialist and the objective are. */
export function keptKey(step: { specialist: string; objective: string }): string {
  return `${step.specialist}\n${step.objective}`;
}
