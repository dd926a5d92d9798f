/**
 * Thread persistence (docs/threads.md): a thread is one conversation of one caller, a list of turns.
 * Every method is scoped by the caller's id: the same thread id under two callers is two threads, and
 * no method reaches another caller's thread. The interface is async so a networked backend (Postgres,
 * issue 17) can implement it; test/integration/store/threads.contract.ts is the suite every backend runs.
 */

/** One step of a turn's plan, as briefly as the history needs it. */
export interface TurnStep {
  id: string;
  specialist: string;
  status: string;
  /** What the step found (clipped), or its error. */
  summary: string;
}

/** One exchange: what the user asked and what the run answered. */
export interface ThreadTurn {
  runId: string;
  /** When the run finished (ms since the epoch). */
  at: number;
  protocol: string;
  /** The user's message (text; images are counted, not stored). */
  user: string;
  /** How many image parts came with the user's message. */
  images?: number;
  /** The answer; absent when the run ended without one. */
  answer?: string;
  /** How the run ended (completed, failed, cancelled, blocked). */
  status: string;
  /** The plan's steps when a plan ran. */
  steps?: TurnStep[];
}

export interface ThreadSummary {
  threadId: string;
  createdAt: number;
  updatedAt: number;
  turnCount: number;
  /** The first user message, clipped: what the thread is about. */
  title: string;
}

export interface Thread extends ThreadSummary {
  /** Oldest first; at most the retention's maxTurns most recent. */
  turns: ThreadTurn[];
}

export interface ThreadRetention {
  /** Threads kept per caller; appending to a new thread beyond it drops the least recently updated. */
  maxThreadsPerCaller: number;
  /** Turns kept per thread (the oldest are dropped first). */
  maxTurnsPerThread: number;
  /** A thread not updated for this long is gone (swept, and never returned). */
  maxAgeMs: number;
}

export interface ThreadStore {
  /** Adds a turn at the end of the caller's thread, creating the thread on its first turn. */
  appendTurn(callerId: string, threadId: string, turn: ThreadTurn): Promise<void>;
  /** The caller's thread, or undefined (unknown, expired, or another caller's). */
  getThread(callerId: string, threadId: string): Promise<Thread | undefined>;
  /** The caller's threads, most recently updated first. */
  listThreads(callerId: string, options?: { limit?: number }): Promise<ThreadSummary[]>;
  /** Deletes the caller's thread; false when it had none by that id. */
  deleteThread(callerId: string, threadId: string): Promise<boolean>;
  /** Drops every thread older than maxAgeMs; returns how many. */
  sweep(): Promise<number>;
}

export const TITLE_CHARS = 120;

/** Thread ids are part of a stored key (LMDB keys are at most 1978 bytes): longer ones are never stored. */
export const MAX_THREAD_ID_CHARS = 256;
