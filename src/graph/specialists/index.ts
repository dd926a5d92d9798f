/**
 * runStep: executes one plan step with its specialist (L1): `prompt` (system prompt + tool loop),
 * `mcp` (an MCP server's tools as a specialist), `a2a` (a peer agent), or the built-in `council`.
 * Returns the output with lineage. A budget overrun aborts the whole run (it ends blocked).
 */
import type { PlanStep } from '../graph-plan.ts';
import { COUNCIL_SPECIALIST } from '../graph-plan.ts';
import type { StepClock, StepRun } from '../scheduler.ts';
import type { StepLineage } from '../events.ts';
import type { EngineContext, RunState } from '../state.ts';
import { BudgetExceededError, emptyUsage } from '../usage.ts';
import { runCouncil } from '../run-council.ts';
import { runPromptSpecialist, type SpecialistInput } from './prompt.ts';
import { runMcpSpecialist } from './mcp.ts';
import { runA2aSpecialist } from './a2a.ts';

export interface StepWork {
  usage: ReturnType<typeof emptyUsage>;
  toolCalls: StepLineage['toolCalls'];
  sources: string[];
  model?: string;
}

export function runStep(
  run: RunState,
  ctx: EngineContext,
  step: PlanStep,
  objective: string,
  signal: AbortSignal,
  clock: StepClock,
  attempt: number,
): Promise<StepRun> {
  const startedAt = ctx.now();
  // Not an async function around an async span body: a step in flight holds one frame, not two.
  return ctx
    .span('step', { 'parley.run_id': run.id, 'parley.step_id': step.id, 'parley.specialist': step.specialist, 'parley.attempt': attempt }, () =>
      stepBody(run, ctx, step, objective, signal, clock, attempt, startedAt),
    )
    .then(undefined, (err: unknown) => {
      if (err instanceof BudgetExceededError) run.abort.abort(err);
      throw err;
    });
}

async function stepBody(
  run: RunState,
  ctx: EngineContext,
  step: PlanStep,
  objective: string,
  signal: AbortSignal,
  clock: StepClock,
  attempt: number,
  startedAt: number,
): Promise<StepRun> {
  const work: StepWork = { usage: emptyUsage(), toolCalls: [], sources: [] };
  if (step.specialist === COUNCIL_SPECIALIST) {
    const council = await runCouncil(run, ctx, objective, signal, work.usage);
    return { ok: true, output: council.text, lineage: lineageOf(ctx, step, 'council', work, startedAt, attempt) };
  }
  const specialist = run.specialists.get(step.specialist) ?? (await ctx.store.getSpecialist(step.specialist));
  if (!specialist) return { ok: false, output: '', error: `unknown specialist "${step.specialist}"`, lineage: lineageOf(ctx, step, 'prompt', work, startedAt, attempt) };
  if (!specialist.available) {
    return {
      ok: false,
      output: '',
      error: `specialist "${specialist.id}" is unavailable: ${specialist.unavailableReason ?? 'no reason given'}`,
      lineage: lineageOf(ctx, step, 'prompt', work, startedAt, attempt),
    };
  }
  const result = await runSpecialist({ run, ctx, specialist, step, objective, signal, clock, work });
  return { ...result, lineage: lineageOf(ctx, step, specialist.kind, work, startedAt, attempt) };
}

function lineageOf(ctx: EngineContext, step: PlanStep, kind: StepLineage['kind'], work: StepWork, startedAt: number, attempt: number): StepLineage {
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
