/**
 * router: cheapest first. Stage 1 reuses a proven TeamConfig (no model call) when the query has the
 * shape of the one that taught it, with objectives written from this query; otherwise the trivial
 * fast path (schemaName `route`: direct | plan | council | dynamic) unless the request's mode decides; then
 * stage 2 (self-model: the store ranks candidates by relevance combined with proficiency) and
 * stage 3 (LLM planning over the top-k, schemaName `graph_plan`).
 */
import { validatePlan } from '../planning/graph-plan.ts';
import { block } from '../prompting/prompts.ts';
import { todayNoteOf } from '../prompting/today.ts';
import { RouteSchema } from '../prompting/schemas.ts';
import { emit, type EngineContext, type NodeRun, type RunState } from '../run/state.ts';
import {
  adoptPlan,
  knownSpecialists,
  loadSpecialists,
  planWithModel,
  retrieveCandidates,
} from '../planning/plan-with-model.ts';
import type { TeamConfig } from '../../knowledge/store.ts';
import type { TeamMatch } from '../run/events.ts';
import { instantiatePlan } from '../learning/instantiate-plan.ts';
import { judgeTeam } from '../learning/team-match.ts';
import type { Decision, Next } from '../run/edges.ts';
import { historyBlock } from '../threads/thread-history.ts';
import { userContent } from '../prompting/user-content.ts';
import { prefetchMemory } from './memory.ts';
import { runPresetPlan } from './preset-plan.ts';
import { earlierDecision, earlierDecisionBlock, type FoundDecision } from '../learning/earlier-decision.ts';
import { MANAGER_SPECIALIST } from '../planning/graph-plan.ts';
import { isEmergent, learnedShape } from '../dynamic/learned-shape.ts';

const earlierNote = (earlier: FoundDecision | undefined) =>
  earlier
    ? `; earlier decision "${earlier.decision.question}" given as context (similarity ${earlier.match.similarity.toFixed(2)})`
    : '';

/**
 * The routing rule (docs/engine.md "Routes and what they cost"): the cheapest route whose answer serves.
 * Every value of the `route` schema is explained, with examples, and so is `reason`.
 */
export const ROUTER_SYSTEM = `You are Parley's router. Choose how Parley answers the query in the parley:query block; the routes differ in cost.

A parley:history block, when present, holds the conversation so far (oldest first): read it to understand what the
query refers to, and route the query itself.

Routes (the "route" field):
- "direct": one model call answers from general knowledge, with no tools and no files (about 1 more call).
  Use it whenever one good answer serves: greetings, facts, explanations, definitions, a comparison of well-known
  options, a short piece of code or text written from the question alone.
  A decision most experts would agree on is "direct" too: one answer gives the settled choice and why.
  Examples: "What is the difference between TCP and UDP?", "Compare B-trees and LSM-trees for write-heavy loads",
  "Write a regex that matches ISO dates", "Raft or Paxos for our small team's replicated store: which should we pick?".
- "plan": specialists work on steps in parallel or in order, may use tools (files in the workspace, the shared
  memory graph, other servers), then a verifier checks and a synthesizer writes the answer (at least 4 more calls).
  Use it when the work needs tools or files, or has distinct parts for different specialists whose results feed
  each other.
  Examples: "Read the notes in the workspace and summarise the open questions", "Write a migration script and save
  it as migrate.sql", "Design the schema, then write the API for it and its tests".
- "council": five advisors answer, three reviewers rank them, a chairman gives a verdict (9 more calls).
  Use it for a decision or trade-off where reasonable experts disagree (the answer depends on judgement, not on
  well-known facts) and no tools or files are needed.
  Examples: "Should we rewrite our monolith as microservices?", "Postgres or MongoDB for our event store?"
- "dynamic": a manager agent grows a team as it learns the task's shape (many calls). Use it only when the parts
  cannot be known before the work starts, because finding them is the first step.
  Example: "Find the three most used open-source vector databases and compare their licences".

A query that is both a decision and several steps: if the steps need tools, files or facts gathered first,
choose "plan" (the planner can add a council step for the decision); if it is a decision to weigh from general
knowledge, choose "council". When in doubt between "direct" and another route, choose "direct".

"reason": one sentence saying why this route fits the query; it is shown to the user.`;

export async function router(run: NodeRun, ctx: EngineContext): Promise<Decision<Next<'router'>>> {
  if (run.mode === 'direct') {
    emit(run, { type: 'route.decided', stage: 'direct', reason: 'mode "direct" requested' });
    return { next: 'direct_answer' };
  }
  if (run.mode === 'council') {
    const earlier = await earlierDecision(run, ctx, run.request.query);
    emit(run, {
      type: 'route.decided',
      stage: 'council',
      reason: 'mode "council" requested' + earlierNote(earlier),
      ...(earlier ? { earlierDecision: earlier.match } : {}),
    });
    return { next: 'council' };
  }

  await loadSpecialists(run, ctx);
  if (run.resumePlan)
    return runPresetPlan(
      run,
      ctx,
      run.resumePlan,
      run.resumeReason ?? 'resuming the checkpointed plan after a restart',
    );
  const preset = ctx.presetPlan?.(run.request);
  if (preset) return runPresetPlan(run, ctx, preset);
  const found = await reusableTeam(run, ctx);
  // A forced dynamic run reuses only a team an earlier dynamic run grew.
  if (found?.match.reused && (run.mode !== 'dynamic' || isEmergent(found.team.plan))) {
    const { team, match } = found;
    void prefetchMemory(run, ctx);
    const rate = team.uses ? team.successes / team.uses : 0;
    const grown = isEmergent(team.plan);
    emit(run, {
      type: 'route.decided',
      stage: 'team_config',
      reason: `reused proven team "${team.pattern}" (similarity ${match.similarity.toFixed(2)}, ${match.why}; ${team.uses} uses, ${Math.round(rate * 100)}% success, mean score ${team.avgScore.toFixed(2)}); objectives written from this query${grown ? '; the team an earlier dynamic run grew, planned up front' : ''}`,
      teamConfigId: team.id,
      candidates: team.specialists,
      teamMatch: match,
    });
    const plan = instantiatePlan(team.plan, run.request.query);
    return {
      next: 'dispatcher',
      update: { teamConfigId: team.id, ...adoptPlan(run, grown ? learnedShape(plan) : plan) },
    };
  }
  // The closest team, when one was refused: route.decided says why.
  const refused = found?.match;
  const notReused = refused
    ? `; proven team "${refused.pattern}" not reused (similarity ${refused.similarity.toFixed(2)}): ${refused.why}`
    : '';
  if (run.mode === 'dynamic') return startDynamic(run, ctx, 'mode "dynamic" requested' + notReused);

  // The caller's earlier verdict on a close question: the routing model sees it, and so will the council.
  const earlier = run.mode === 'auto' ? await earlierDecision(run, ctx, run.request.query) : undefined;
  const seen = earlier ? { earlierDecision: earlier.match } : {};
  // The routing model's own reason for a plan: route.decided shows it before how the plan is made.
  let routerReason = '';
  if (run.mode === 'auto') {
    const { value } = await run.model.structured({
      role: 'router',
      schemaName: 'route',
      schema: RouteSchema,
      messages: [
        { role: 'system', content: ROUTER_SYSTEM + todayNoteOf(ctx) },
        {
          role: 'user',
          content: userContent(
            run,
            ctx,
            'router',
            [historyBlock(run.history), block('query', run.request.query), earlier ? earlierDecisionBlock(earlier) : '']
              .filter(Boolean)
              .join('\n\n'),
          ),
        },
      ],
      signal: run.abort.signal,
    });
    if (value.route === 'direct') {
      emit(run, {
        type: 'route.decided',
        stage: 'direct',
        reason: value.reason + notReused + earlierNote(earlier),
        ...(refused ? { teamMatch: refused } : {}),
        ...seen,
      });
      return { next: 'direct_answer' };
    }
    if (value.route === 'dynamic') return startDynamic(run, ctx, value.reason + notReused);
    if (value.route === 'council') {
      emit(run, {
        type: 'route.decided',
        stage: 'council',
        reason: value.reason + notReused + earlierNote(earlier),
        ...(refused ? { teamMatch: refused } : {}),
        ...seen,
      });
      return { next: 'council' };
    }
    if (value.reason.trim()) routerReason = `${value.reason.trim()}; `;
  }

  await retrieveCandidates(run, ctx);
  const hybrid =
    run.mode === 'hybrid' ? 'mode "hybrid" requested: the planned steps may be managers that spawn agents; ' : '';
  const withRecord = run.candidates.filter((c) => c.proficiency && c.proficiency.runs > 0);
  const reordered = run.candidates.some((c, i) => i > 0 && c.relevance > run.candidates[i - 1]!.relevance);
  emit(run, {
    type: 'route.decided',
    stage: hybrid ? 'hybrid' : reordered ? 'self_model' : 'llm_plan',
    reason:
      hybrid +
      routerReason +
      (reordered
        ? `self-model reordered the top ${run.candidates.length} candidates (${withRecord.length} with a track record); planning over them`
        : `planning over the top ${run.candidates.length} candidates by relevance (${withRecord.length} with a track record)`) +
      notReused +
      earlierNote(earlier),
    candidates: run.candidates.map((c) => c.specialist.id),
    ...(refused ? { teamMatch: refused } : {}),
    ...seen,
  });
  if (run.candidates.length === 0) {
    const error = 'no specialists are available to plan with (is the registry empty?)';
    return { next: 'end', update: { outcome: { status: 'failed', error } } };
  }
  void prefetchMemory(run, ctx);
  const attempt = await planWithModel(run, ctx);
  if (!attempt.ok) {
    const error = `the planner produced an invalid plan twice: ${attempt.errors.join('; ')}`;
    return { next: 'end', update: { outcome: { status: 'failed', error } } };
  }
  return { next: 'dispatcher', update: adoptPlan(run, attempt.plan) };
}

/**
 * A dynamic run: one manager agent, given the query, grows the team as it learns the task's shape
 * (docs/engine.md "Dynamic teams"); it sees the top candidates as the specialists it may spawn.
 */
async function startDynamic(run: NodeRun, ctx: EngineContext, reason: string): Promise<Decision<Next<'router'>>> {
  await retrieveCandidates(run, ctx);
  emit(run, {
    type: 'route.decided',
    stage: 'dynamic',
    reason: `${reason}: a manager agent spawns agents as it learns the task's shape`,
    candidates: run.candidates.map((c) => c.specialist.id),
  });
  void prefetchMemory(run, ctx);
  const update = adoptPlan(run, {
    rationale: 'Dynamic: a manager grows the team while the run goes on.',
    steps: [
      {
        id: 'manager',
        specialist: MANAGER_SPECIALIST,
        objective: run.request.query,
        dependsOn: [],
        phase: 'execution',
        manager: true,
        timeoutMs: ctx.config.engine.dynamic.nodeTimeoutMs,
      },
    ],
  });
  return { next: 'dispatcher', update };
}

/**
 * Stage 1: the closest proven team whose plan is still valid against today's registry, judged
 * against the query (learning/team-match.ts): `match.reused` says whether it may run this query.
 */
async function reusableTeam(
  run: RunState,
  ctx: EngineContext,
): Promise<{ team: TeamConfig; match: TeamMatch } | undefined> {
  if (!ctx.config.knowledge.teamReuse) return undefined;
  let team: TeamConfig | undefined;
  try {
    // Only the caller's own teams: a team's plan carries the objectives of the runs that taught it.
    team = await ctx.store.findTeamConfig(run.request.query, { callerId: run.callerId });
  } catch (err) {
    ctx.logger.warn('team config lookup failed; planning instead', { runId: run.id, error: (err as Error).message });
    return undefined;
  }
  if (!team) return undefined;
  const rate = team.uses ? team.successes / team.uses : 0;
  if (rate < ctx.config.knowledge.teamMinSuccessRate) return undefined;
  const errors = validatePlan(team.plan, knownSpecialists(run));
  if (errors.length) {
    ctx.logger.info('proven team no longer valid; planning instead', { runId: run.id, teamConfigId: team.id, errors });
    return undefined;
  }
  return { team, match: judgeTeam(run.request.query, team) };
}
