/**
 * runStep: executes one plan step with its specialist (L1): `prompt` (system prompt + tool loop),
 * `mcp` (an MCP server's tools as a specialist), `a2a` (a peer agent), or the built-in `council`
 * (council.ts, which the council node calls too). Returns the output with lineage. A budget overrun
 * aborts the whole run (it ends blocked).
 */
import { toolKindsOf } from '../planning/plan-with-model.ts';
import { COUNCIL_SPECIALIST, MANAGER_SPECIALIST } from '../planning/graph-plan.ts';
import { MANAGER_RECORD } from '../dynamic/manager.ts';
import { agentHooks } from '../dynamic/agent-tools.ts';
import { teamOf } from '../dynamic/team.ts';
import type { StepRun } from '../planning/scheduler.ts';
import type { StepLineage } from '../run/events.ts';
import { BudgetExceededError, emptyUsage } from '../spending/usage.ts';
import { runCouncil } from './council.ts';
import { runPromptSpecialist, type SpecialistInput } from './prompt.ts';
import { runMcpSpecialist } from './mcp.ts';
import { runA2aSpecialist } from './a2a.ts';
import type { StepCall, StepWork } from './step-call.ts';

export async function runStep(call: StepCall): Promise<StepRun> {
  const { run, ctx, step, attempt } = call;
  try {
    return await ctx.span(
      'step',
      {
        'parley.run_id': run.id,
        'parley.step_id': step.id,
        'parley.specialist': step.specialist,
        'parley.attempt': attempt,
      },
      () => stepBody(call),
    );
  } catch (err) {
    if (err instanceof BudgetExceededError) run.abort.abort(err);
    throw err;
  }
}

async function stepBody(call: StepCall): Promise<StepRun> {
  const { run, ctx, step } = call;
  const startedAt = ctx.now();
  const work: StepWork = { usage: emptyUsage(), toolCalls: [], sources: [], named: [] };
  const lineage = (kind: StepLineage['kind']) => lineageOf(call, kind, work, startedAt);
  if (step.specialist === COUNCIL_SPECIALIST) {
    const council = await runCouncil(run, ctx, call.objective, call.signal, work.usage);
    return { ok: true, output: council.text, lineage: lineage('council') };
  }
  const specialist =
    step.specialist === MANAGER_SPECIALIST
      ? MANAGER_RECORD
      : (run.specialists.get(step.specialist) ?? (await ctx.store.getSpecialist(step.specialist)));
  if (!specialist)
    return { ok: false, output: '', error: `unknown specialist "${step.specialist}"`, lineage: lineage('prompt') };
  if (!specialist.available) {
    return {
      ok: false,
      output: '',
      error: `specialist "${specialist.id}" is unavailable: ${specialist.unavailableReason ?? 'no reason given'}`,
      lineage: lineage('prompt'),
    };
  }
  // A team agent (a manager, or a step an agent spawned) gets the team's tools beside its specialist's.
  const team = teamOf(run);
  const tools = team?.has(step.id) && team.roleOf(step.id) === 'manager' ? await toolKindsOf(run, ctx) : undefined;
  const agent = team?.has(step.id)
    ? agentHooks(run, team, step.id, call.clock, tools && ((id) => tools.get(id)))
    : undefined;
  const result = await runSpecialist({ ...call, specialist, work, ...(agent ? { agent } : {}) });
  return { ...result, lineage: lineage(specialist.kind) };
}

function lineageOf(
  { ctx, step, attempt }: StepCall,
  kind: StepLineage['kind'],
  work: StepWork,
  startedAt: number,
): StepLineage {
  const finishedAt = ctx.now();
  return {
    specialist: step.specialist,
    kind,
    ...(work.model ? { model: work.model } : {}),
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    durationMs: finishedAt - startedAt,
    attempt,
    toolCalls: work.toolCalls,
    sources: work.sources,
    ...(work.named.length ? { named: work.named } : {}),
    usage: work.usage,
  };
}

function runSpecialist(input: SpecialistInput): Promise<Omit<StepRun, 'lineage'>> {
  switch (input.specialist.kind) {
    case 'prompt':
      return runPromptSpecialist(input);
    case 'mcp':
      return runMcpSpecialist(input);
    case 'a2a':
      return runA2aSpecialist(input);
  }
}
