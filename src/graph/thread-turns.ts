/**
 * The engine's side of threads (docs/threads.md): before a run, its history (the stored thread of its
 * caller, merged with the messages the client sent, within the budget); after it, its turn. A thread
 * is keyed by caller and thread id, so a thread id another caller uses is simply another thread: the
 * run starts a fresh one and learns nothing of theirs. Only a request that names a thread is stored.
 */
import type { RunEnding } from './events.ts';
import type { StepOutcome } from './scheduler.ts';
import type { EngineContext, RunState } from './state.ts';
import { buildHistory, type ConversationHistory } from './thread-history.ts';
import type { ThreadTurn, TurnStep } from '../store/threads/types.ts';

const FINDING_CHARS = 500;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Writes still in flight, per caller and thread: the next run of the thread waits for them. */
export type PendingTurns = Map<string, Promise<void>>;

const keyOf = (run: RunState) => `${run.callerId}\n${run.threadId}`;

/** The run's history: its caller's stored thread (when it names one) and the messages it sent. */
export async function loadHistory(
  run: RunState,
  ctx: EngineContext,
  pending: PendingTurns,
): Promise<ConversationHistory> {
  const budget = { tokens: ctx.config.engine.threadHistoryTokens, recentTurns: ctx.config.engine.threadRecentTurns };
  let thread;
  if (ctx.threads && run.request.threadId !== undefined) {
    await pending.get(keyOf(run));
    try {
      thread = await ctx.threads.getThread(run.callerId, run.threadId);
    } catch (err) {
      ctx.logger.warn('reading the thread failed; the run goes on without its history', {
        runId: run.id,
        error: (err as Error).message,
      });
    }
  }
  return buildHistory(thread, run.request.messages, budget);
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
 * Stores the run's turn in its thread (a run refused before it began is not a turn). The write is
 * registered in `pending` until it commits, so the thread's next run reads it even when the client
 * asks again the moment it sees run.finished.
 */
export function saveTurn(run: RunState, ctx: EngineContext, ending: RunEnding, pending: PendingTurns): Promise<void> {
  const threads = ctx.threads;
  if (!threads || run.request.threadId === undefined || ending.status === 'blocked') return Promise.resolve();
  const key = keyOf(run);
  const before = pending.get(key) ?? Promise.resolve();
  const write = before
    .then(() => threads.appendTurn(run.callerId, run.threadId, turnOf(run, ending, ctx.now())))
    .catch((err: unknown) =>
      ctx.logger.error('storing the turn in its thread failed', { runId: run.id, error: (err as Error).message }),
    );
  pending.set(key, write);
  void write.then(() => {
    if (pending.get(key) === write) pending.delete(key);
  });
  return write;
}
