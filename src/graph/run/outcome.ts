/**
 * How a run ends when its nodes did not say: a request the engine refuses before any node runs, a run id
 * already taken, and the outcome an exception or an abort (cancel, budget, a deadlocked team) stands for.
 */
import type { ApprovalPort } from '../../hitl/types.ts';
import { runApprovals } from './approvals.ts';
import { ADMITTED } from '../spending/admission.ts';
import type { RunHandle, RunResult } from './engine-port.ts';
import type { RunEventLog } from './event-log.ts';
import type { RunEnding } from './events.ts';
import { RUN_MODES, ownerIdOf, type RunRequest } from './request.ts';
import type { RunOutcome, RunState } from './state.ts';
import { BudgetExceededError } from '../spending/usage.ts';
import { MAX_THREAD_ID_CHARS } from '../../store/threads/types.ts';

/**
 * An abort reason that fails the run instead of cancelling it (a deadlocked team's, dynamic/team.ts):
 * defined here, below the rooms that stop a run this way, so that run/ imports none of them.
 */
export class RunFailedError extends Error {
  override name = 'RunFailedError';
}

export function invalidRequest(request: RunRequest): string | undefined {
  if (typeof request.query !== 'string' || (request.query.trim() === '' && !request.parts?.length))
    return 'the query is empty';
  if (
    request.threadId !== undefined &&
    (typeof request.threadId !== 'string' || request.threadId.length > MAX_THREAD_ID_CHARS)
  )
    return `the thread id must be a string of at most ${MAX_THREAD_ID_CHARS} characters`;
  if (request.mode !== undefined && !RUN_MODES.includes(request.mode)) {
    return `unknown mode "${String(request.mode)}" (expected ${RUN_MODES.join(', ')})`;
  }
  return undefined;
}

export function outcomeOf(run: RunState, err: unknown): RunOutcome {
  const reason = run.abort.signal.aborted ? run.abort.signal.reason : err;
  if (reason instanceof BudgetExceededError) {
    return {
      status: 'blocked',
      error: reason.message,
      ...(reason.retryAfterMs !== undefined ? { retryAfterMs: reason.retryAfterMs } : {}),
    };
  }
  // A deadlocked team (dynamic/team.ts) stops the run through its signal, but nobody cancelled it: it failed.
  if (reason instanceof RunFailedError) return { status: 'failed', error: reason.message };
  if (run.abort.signal.aborted)
    return { status: 'cancelled', error: reason instanceof Error ? reason.message : 'cancelled' };
  return { status: 'failed', error: err instanceof Error ? err.message : String(err) };
}

/** How the run ended, as run.finished says it and its result settles with (the same fields). */
export function endingOf(run: RunState, outcome: RunOutcome, durationMs: number): RunEnding {
  const completed = outcome.status === 'completed';
  return {
    status: outcome.status,
    ...(run.answer !== undefined && completed ? { answer: run.answer } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(run.failedSteps?.length ? { failedSteps: run.failedSteps } : {}),
    ...(run.sources?.length && completed ? { sources: run.sources } : {}),
    ...(run.references?.length && completed ? { references: run.references } : {}),
    ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
    usage: { ...run.meter.totals },
    durationMs,
  };
}

/** A detached run that failed before it began (its id was taken): its own log, never the owner's. */
export function failedRunHandle(
  log: RunEventLog,
  threadId: string,
  request: RunRequest,
  error: string,
  approvals: ApprovalPort,
): RunHandle {
  const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, modelCalls: 0, toolCalls: 0 };
  log.emit({
    type: 'run.started',
    threadId,
    query: String(request.query ?? ''),
    mode: request.mode ?? 'auto',
    protocol: request.protocol,
  });
  log.emit({ type: 'run.finished', status: 'failed', error, usage, durationMs: 0 });
  const result: RunResult = { runId: log.runId, threadId, status: 'failed', error, usage, durationMs: 0 };
  const callerId = ownerIdOf(request);
  return {
    id: log.runId,
    threadId,
    callerId,
    admission: Promise.resolve(ADMITTED),
    result: Promise.resolve(result),
    events: (afterSeq) => log.events(afterSeq),
    lastSeq: () => log.lastSeq,
    ...runApprovals(approvals, log.runId, callerId),
  };
}
