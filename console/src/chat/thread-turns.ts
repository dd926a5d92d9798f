/**
 * A thread as the chat shows it: its stored turns (GET /api/threads/:id, written when each run ends)
 * followed by its runs still going (GET /api/runs?threadId=&status=running), so a reload, or coming
 * back from the inbox, finds a run in flight and follows it.
 */
import { api, ApiError } from '../api/client.ts';
import type { RunSummary } from '../api/types.ts';

export interface Turn {
  runId: string;
  user: string;
  answer?: string;
  status: string;
}

const LAST_THREAD_ITEM = 'parley.lastThread';

/** The thread the chat showed last in this tab: where the Chat link goes back to. */
export const lastThread = {
  get: (): string | undefined => sessionStorage.getItem(LAST_THREAD_ITEM) ?? undefined,
  set: (threadId: string | undefined) =>
    threadId ? sessionStorage.setItem(LAST_THREAD_ITEM, threadId) : sessionStorage.removeItem(LAST_THREAD_ITEM),
};

export async function threadTurns(threadId: string): Promise<Turn[]> {
  const id = encodeURIComponent(threadId);
  const [stored, running] = await Promise.all([
    api<{ turns: Turn[] }>(`/api/threads/${id}`).then(
      (thread) => thread.turns,
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return []; // no run has finished on it yet
        throw err;
      },
    ),
    api<{ runs: RunSummary[] }>(`/api/runs?threadId=${id}&status=running`).then((body) => body.runs),
  ]);
  const known = new Set(stored.map((t) => t.runId));
  const going = running
    .filter((r) => !known.has(r.id))
    .reverse()
    .map((r): Turn => ({ runId: r.id, user: r.query, status: 'running' }));
  return [...stored, ...going];
}
