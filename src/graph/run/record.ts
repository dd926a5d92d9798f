/**
 * What a finished run leaves in execution memory: its RunRecord, built from the run's state alone
 * (no clock, no store), so the engine only decides when to write it.
 */
import type { GraphPlan } from '../../knowledge/records.ts';
import type { StepOutcome } from './step-outcome.ts';
import type { RunOutcome, RunState } from './state.ts';
import { totalTokens, type UsageMeter } from '../spending/usage.ts';
import type { RunRecord, StepRecord } from '../../knowledge/store.ts';

/** The parts of a run the record is made of (a RunState has them all). */
export type FinishedRun = Pick<
  RunState,
  | 'id'
  | 'threadId'
  | 'request'
  | 'callerId'
  | 'startedAt'
  | 'answer'
  | 'plan'
  | 'results'
  | 'verification'
  | 'best'
  | 'exhausted'
  | 'teamConfigId'
> & { meter: Pick<UsageMeter, 'totals'> };

/**
 * The run's record, or undefined for a run refused before any model call (rate limit, caller
 * budget): that is not execution memory. When the verification rounds ran out, the record is the
 * best round's plan, results and score (the one the answer was made from), not the last round's.
 */
export function runRecordOf(run: FinishedRun, outcome: RunOutcome, durationMs: number): RunRecord | undefined {
  if (outcome.status === 'blocked' && run.meter.totals.modelCalls === 0) return undefined;
  const source = run.exhausted && run.best ? run.best : run.plan ? { plan: run.plan, results: run.results } : undefined;
  const score = run.exhausted && run.best ? run.best.verification.score : (run.verification?.score ?? null);
  return {
    id: run.id,
    threadId: run.threadId,
    query: run.request.query,
    protocol: run.request.protocol,
    callerId: run.callerId,
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs,
    status: outcome.status,
    ...(run.answer !== undefined ? { answer: run.answer } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    tokens: totalTokens(run.meter.totals),
    costUsd: run.meter.totals.costUsd,
    score,
    ...(source ? { plan: source.plan } : {}),
    steps: source ? stepRecordsOf(source.plan, source.results) : [],
    ...(run.teamConfigId ? { teamConfigId: run.teamConfigId } : {}),
    ...(run.request.forkedFrom ? { forkedFrom: run.request.forkedFrom } : {}),
  };
}

/**
 * One record per planned step, in plan order; a step that never ran is recorded as skipped (a run
 * still going passes 'pending' for the steps it has not finished yet).
 */
export function stepRecordsOf<Missing extends string = 'skipped'>(
  plan: GraphPlan,
  results: ReadonlyMap<string, StepOutcome>,
  missing: Missing = 'skipped' as Missing,
): (Omit<StepRecord, 'status'> & { status: StepRecord['status'] | Missing })[] {
  return plan.steps.map((s) => {
    const o = results.get(s.id);
    const usage = o?.lineage?.usage;
    return {
      id: s.id,
      specialist: s.specialist,
      objective: o?.objective ?? s.objective,
      status: o?.status ?? missing,
      ...(o?.output !== undefined ? { output: o.output } : {}),
      ...(o?.error !== undefined ? { error: o.error } : {}),
      durationMs: o?.lineage?.durationMs ?? 0,
      tokens: usage ? totalTokens(usage) : 0,
      costUsd: usage ? usage.costUsd : 0,
      toolCalls: (o?.lineage?.toolCalls ?? []).map((t) => ({ tool: t.tool, status: t.status })),
    };
  });
}
