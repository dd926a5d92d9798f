/**
 * The engine's side of threads (docs/threads.md): before a run, its history (the stored thread of its
 * caller, merged with the messages the client sent, within the budget); after it, its turn. A thread
 * is keyed by caller and thread id, so a thread id another caller uses is simply another thread: the
 * run starts a fresh one and learns nothing of theirs. Every run's turn is stored under the threadId
 * its run.started announced (the request's, else the run id), so a client that continues with that id,
 * on any protocol, gets the conversation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEnding } from '../run/events.ts';
import type { StepOutcome } from '../run/step-outcome.ts';
import type { EngineContext, RunState } from '../run/state.ts';
import { buildHistory, type ConversationHistory } from './thread-history.ts';
import type { ThreadTurn, TurnStep } from '../../store/threads/types.ts';

const FINDING_CHARS = 500;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The run's history: its caller's stored thread (when it names one) and the messages it sent. A read
 * that fails (the store restarting) is retried with backoff for PARLEY_THREAD_READ_RETRY_MS (20 s), or less within the
 * run's wall-time budget, or until the run is stopped; if it still fails the run fails saying why,
 * rather than answer as if the conversation had not happened (every protocol shows a failed run's reason).
 */
export async function loadHistory(run: RunState, ctx: EngineContext): Promise<ConversationHistory> {
  const budget = { tokens: ctx.config.engine.threadHistoryTokens, recentTurns: ctx.config.engine.threadRecentTurns };
  // A run that named no thread is the first of its own (its run id): nothing stored yet to read.
  const threads = ctx.threads;
  const thread =
    threads && run.request.threadId !== undefined
      ? await retried(() => threads.getThread(run.callerId, run.threadId), run, ctx)
      : undefined;
  const history = buildHistory(thread, run.request.messages, budget);
  return thread?.turns.length ? { ...history, runIds: thread.turns.map((t) => t.runId) } : history;
}

async function retried<T>(read: () => Promise<T>, run: RunState, ctx: EngineContext): Promise<T> {
  // The history is the run's first step, so its whole wall time is ahead: the retries end before it does,
  // and the run fails naming the thread rather than "wall time budget" with the cause left in the log.
  const giveUpAt = ctx.now() + Math.min(ctx.config.engine.threadReadRetryMs, run.meter.budget.wallTimeMs);
  for (let delay = 100, attempt = 1; ; delay = Math.min(delay * 2, 2_000), attempt++) {
    try {
      return await read();
    } catch (err) {
      const error = (err as Error).message;
      if (run.abort.signal.aborted || ctx.now() + delay > giveUpAt) {
        ctx.logger.error('reading the thread failed; the run fails rather than answer without it', {
          runId: run.id,
          attempts: attempt,
          error,
        });
        throw new Error(
          `the conversation of thread "${run.threadId}" could not be read (${error}); the run stopped rather than answer without it: retry`,
        );
      }
      ctx.logger.warn('reading the thread failed; retrying', { runId: run.id, attempt, error });
      // A stop (cancel, shutdown) ends the wait at once; the run ends as its stop says (outcome.ts reads its reason).
      await sleep(delay, undefined, { signal: run.abort.signal }).catch(() => undefined);
      if (run.abort.signal.aborted) throw run.abort.signal.reason;
    }
  }
}

function stepsOf(run: RunState): TurnStep[] | undefined {
  const source = run.exhausted && run.best ? run.best : run.plan ? { plan: run.plan, results: run.results } : undefined;
  if (!source) return undefined;
  return source.plan.steps.map((s) => {
    const o: StepOutcome | undefined = source.results.get(s.id);
    return {
      id: s.id,
      specialist: s.specialist,
      status: o?.status ?? 'skipped',
      summary: clip(o?.output || o?.error || 'not run', FINDING_CHARS),
    };
  });
}

export function turnOf(run: RunState, ending: RunEnding, at: number): ThreadTurn {
  const steps = stepsOf(run);
  const images = run.request.parts?.filter((p) => p.type === 'image').length ?? 0;
  return {
    runId: run.id,
    at,
    protocol: run.request.protocol,
    user: run.request.query,
    ...(images ? { images } : {}),
    ...(ending.answer !== undefined ? { answer: ending.answer } : {}),
    status: ending.status,
    ...(steps?.length ? { steps } : {}),
  };
}

/**
 * Stores the run's turn in its thread (a run refused before it began is not a turn). The engine awaits
 * it before run.finished, so a client that saw the end finds the turn stored. A failed write is logged,
 * never fails the run.
 */
export async function saveTurn(run: RunState, ctx: EngineContext, ending: RunEnding): Promise<void> {
  if (!ctx.threads || ending.status === 'blocked') return;
  try {
    await ctx.threads.appendTurn(run.callerId, run.threadId, turnOf(run, ending, ctx.now()));
  } catch (err) {
    ctx.logger.error('storing the turn in its thread failed', { runId: run.id, error: (err as Error).message });
  }
}
