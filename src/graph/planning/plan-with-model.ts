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
import { block, hasRecord, specialistsBlock, type ToolKinds } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { emit, type EngineContext, type KeptStep, type NodeRun, type RunState, type RunUpdate } from '../run/state.ts';
import type { StepOutcome } from '../run/step-outcome.ts';
import type { PlanCause } from '../run/events.ts';
import { historyNote } from '../threads/thread-history.ts';
import { userContent } from '../prompting/user-content.ts';
import type { ChatMessage } from '../../llm/types.ts';
import { isReadOnly } from './step-tools.ts';

const COUNCIL_ENTRY = {
  id: COUNCIL_SPECIALIST,
  kind: 'council',
  description: 'Council of five advisors who debate a decision, review each other anonymously, and return a verdict',
  domains: ['decision', 'strategy'],
};

/** Queries that weigh a decision get the council offered as a step; others never see it (it costs 9 calls). */
const DECISION_WORDS =
  /\b(should|decide|decision|choose|choice|whether|trade-?offs?|pros and cons|recommend|strategy|versus|vs\.?)\b/i;

/**
 * Every field of a plan step (graph-plan.ts PlanStepSchema) and of <parley:specialists> is explained here.
 * {{id.result}} inlining is explained in words (never written as a live template here: no model may see
 * an unrendered template).
 */
const PLANNER_SYSTEM = `You are Parley's planner. Build a GraphPlan for the query in the parley:query block: a DAG of steps, each done by ONE
of the specialists listed in the parley:specialists block. The answer to the user is written afterwards from the steps' outputs.

The specialists (fields of each entry):
- "id": what a step's "specialist" names; use only listed ids.
- "kind": "prompt" = a model with its own instructions and the tools listed; "mcp" = a model that operates one MCP server's
  tools (not a direct tool call: write its objective as a task in words, and it decides which tools to call);
  "a2a" = a remote agent, given the objective as a message; "council" = five advisors debate a decision and return a verdict
  (costly: only for a real decision).
- "description", "domains": what it is good at. "relevance": how well it matches the query (0..1).
- "tools": its tools, split into "readOnly" (look things up) and "changes" (write, edit, move or delete).
- "record", when present: its track record in earlier runs (runs, successRate, meanScore 0..1, meanLatencyMs, meanCostUsd).

Each step (the fields of "steps"):
- "id": unique, letters, digits, _ and - (e.g. "schema", "compare"); other steps name it in "dependsOn".
- "specialist": one listed id. "objective": the task in full, as that specialist should read it.
- "dependsOn": the ids of the steps whose output this step needs; it starts after they succeed. Independent steps run
  in parallel, so only add a dependency when a step truly needs another's output.
- An objective may include a dependency's whole output: write the step id followed by ".result", wrapped in double
  curly braces (for step "compare": compare.result in double curly braces). Parley replaces it with that step's whole
  output before the step runs, so put it where a block of text reads well (e.g. at the end, after "Input:") and keep the
  step's instructions before it. Only for steps listed in "dependsOn".
- "phase": "research" for gathering facts (research steps run first), "execution" for producing the answer.
- "changes": true when the step creates, edits, moves or deletes files or records (its specialist is then offered its
  "changes" tools, and each such call may wait for a human's approval); false for research, reading and analysis
  (only "readOnly" tools are offered).
- "timeoutMs": optional time limit in milliseconds; leave it out unless a step is known to be slow.
- "model": optional model name for this step's calls; leave it out unless the query asks for a model.
- "manager": leave it out (hybrid mode explains it when it applies). "parentStepId": never set it (Parley sets it on
  steps that agents spawn).
- "rationale": one or two sentences on why this plan answers the query.

Use as few steps as the query needs: one step is a good plan for a single task. When "What the previous attempt taught"
follows the specialists, this is a re-plan: fix what it says.`;

/** Said only when some candidate has a track record (no record, no advice to prefer one). */
const RECORD_NOTE = `\nPrefer specialists with a good record (high successRate and meanScore) when they fit the task equally well.`;

/** Hybrid mode: the planned skeleton's steps may be managers (docs/engine.md "Dynamic teams"). */
const HYBRID_NOTE = `\n\nHybrid mode: set "manager": true on a step whose parts cannot be known until it starts (for example
"compare the top 3 companies": which three is its first finding). A manager step spawns agents of its own as it learns.`;

/** Loads the available specialists once per run (ids are what plan validation checks against). */
export async function loadSpecialists(run: RunState, ctx: EngineContext): Promise<void> {
  if (run.specialists.size) return;
  const available = await ctx.directory.get();
  // A replay on another specialist set (graph/timetravel/): the run may use only those.
  const only = run.request.specialists;
  run.specialists = only ? new Map([...available].filter(([id]) => only.includes(id))) : available;
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
  const only = run.request.specialists;
  run.candidates = (await ctx.store.retrieveSpecialists(run.request.query, only ? Math.max(k, 50) : k))
    .filter((c) => !only || run.specialists.has(c.specialist.id))
    .slice(0, k)
    .map((c) => ({
      ...c,
      specialist: run.specialists.get(c.specialist.id) ?? c.specialist,
    }));
  if (run.candidates.length === 0) {
    run.candidates = [...run.specialists.values()]
      .slice(0, k)
      .map((specialist) => ({ specialist, relevance: 0, score: 0 }));
  }
}

/** Each candidate's bound tools, split by their MCP annotations (readOnlyHint) as the tool guard reads them. */
export async function toolKindsOf(run: RunState, ctx: EngineContext): Promise<Map<string, ToolKinds>> {
  const out = new Map<string, ToolKinds>();
  await Promise.all(
    run.candidates.map(async ({ specialist }) => {
      const found = await Promise.all(specialist.tools.map((id) => ctx.tools.getTool(id).catch(() => undefined)));
      const kinds: ToolKinds = { readOnly: [], changes: [] };
      for (const t of found) if (t) (isReadOnly(t) ? kinds.readOnly : kinds.changes).push(t.id);
      out.set(specialist.id, kinds);
    }),
  );
  return out;
}

/**
 * A planner's step that does not say it changes things is read-only (its prompt says so): the field
 * is set on every step the model wrote, so the plan a run keeps (and a team learns) says it.
 */
function decidedChanges(plan: GraphPlan): GraphPlan {
  return { ...plan, steps: plan.steps.map((s) => (s.changes === undefined ? { ...s, changes: false } : s)) };
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
  const tools = await toolKindsOf(run, ctx);
  const context = [
    block('query', run.request.query),
    ...(run.mode === 'hybrid' ? [block('mode', 'hybrid')] : []),
    specialistsBlock(run.candidates, extra, (id) => tools.get(id)),
    learned ? `What the previous attempt taught:\n${learned}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        PLANNER_SYSTEM +
        INLINED_RESULTS_NOTE +
        (hasRecord(run.candidates) ? RECORD_NOTE : '') +
        (run.mode === 'hybrid' ? HYBRID_NOTE : '') +
        historyNote(run.history) +
        todayNoteOf(ctx),
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
    const decided = decidedChanges(value);
    const plan = complete(decided);
    // Steps the completion added (finished steps carried over) were checked when first adopted.
    const carried = plan.steps.filter((s) => !decided.steps.includes(s)).map((s) => s.specialist);
    errors = validatePlan(plan, known, carried.length ? new Set([...offered, ...carried]) : offered);
    if (errors.length === 0) return { ok: true, plan };
    ctx.logger.info('planner returned an invalid plan', { runId: run.id, attempt, errors });
  }
  return { ok: false, errors };
}

/**
 * `plan` as the run's current plan, announced, as the update that makes it so. Every step is pending
 * except those kept from an earlier round (`kept`, else run.kept: same specialist and objective, and
 * every dependency kept too): their result is carried over and they are never run again. `round` is
 * the plan's round (else run.planRound).
 */
export function adoptPlan(
  run: NodeRun,
  proposed: GraphPlan,
  adopted: { round?: number; kept?: ReadonlyMap<string, KeptStep>; replan?: PlanCause } = {},
): RunUpdate {
  const plan = normalizePhases(proposed);
  const kept = adopted.kept ?? run.kept;
  const results = new Map<string, StepOutcome>();
  const pending = new Set(plan.steps.map((s) => s.id));
  for (let grew = true; grew && kept?.size;) {
    grew = false;
    for (const step of plan.steps) {
      const carried = kept.get(keptKey(step));
      if (!carried || !pending.has(step.id) || step.dependsOn.some((d) => pending.has(d))) continue;
      results.set(step.id, { ...carried.outcome, stepId: step.id });
      pending.delete(step.id);
      grew = true;
    }
  }
  emit(run, { type: 'plan.ready', plan, round: adopted.round ?? run.planRound, ...adopted.replan });
  return { plan, results, pending, attempts: new Map(), feedback: undefined };
}

/** A step is the same work as an earlier one when the specialist and the objective are. */
export function keptKey(step: { specialist: string; objective: string }): string {
  return `${step.specialist}\n${step.objective}`;
}
