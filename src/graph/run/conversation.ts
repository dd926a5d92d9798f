/**
 * The conversation before a run's query, as the run holds it (RunState.history). Its own file in run/
 * because the run carries it from the first node on; threads/thread-history.ts builds it within budget.
 */
import type { PriorMessage } from './request.ts';

export interface ConversationHistory {
  /** Oldest first: chat turns for the roles that answer in conversation (direct answer, synthesizer). */
  messages: PriorMessage[];
  /** Stored turns and sent messages left out because the budget ran out. */
  omitted: number;
  /** The runs of the stored thread: execution memory leaves them out (the history already carries them). */
  runIds?: string[];
}

export const EMPTY_HISTORY: ConversationHistory = { messages: [], omitted: 0 };
