/**
 * The embedded ThreadStore over the run store's LMDB environment (kv.ts). Two named databases:
 * `threads` keyed [callerId, threadId] holds a thread's summary and the seq of its next turn;
 * `thread-turns` keyed [callerId, threadId, seq] holds the turns. The caller leads every key, so a
 * caller's range never reaches another's. Each append is one write transaction (summary, turn,
 * trimming and the per-caller cap together), committed before appendTurn resolves.
 */
import type { Kv } from '../kv.ts';
import {
  MAX_THREAD_ID_CHARS,
  TITLE_CHARS,
  type Thread,
  type ThreadRetention,
  type ThreadStore,
  type ThreadSummary,
  type ThreadTurn,
} from './types.ts';

interface Meta extends ThreadSummary {
  /** The seq the next turn gets; turns are [firstSeq, nextSeq). */
  nextSeq: number;
  firstSeq: number;
}

/** The end of a caller's key range: every [callerId, …] key sorts below it. */
const callerEnd = (callerId: string) => [`${callerId}\u0000`];
const LAST_SEQ = Number.MAX_SAFE_INTEGER;

export function createLmdbThreadStore(kv: Kv, retention: ThreadRetention, now: () => number = Date.now): ThreadStore {
  const threads = kv.db<Meta>('threads');
  const turns = kv.db<ThreadTurn>('thread-turns');

  const live = (meta: Meta | undefined): meta is Meta => !!meta && now() - meta.updatedAt <= retention.maxAgeMs;
  const summary = ({ threadId, createdAt, updatedAt, turnCount, title }: Meta): ThreadSummary => ({
    threadId,
    createdAt,
    updatedAt,
    turnCount,
    title,
  });
  const callerMetas = (callerId: string) =>
    [...threads.getRange({ start: [callerId], end: callerEnd(callerId) })].map((e) => e.value);

  /** Removes a thread's summary and turns (inside a write transaction). */
  const remove = (callerId: string, meta: Meta) => {
    for (const { key } of turns.getRange({
      start: [callerId, meta.threadId, 0],
      end: [callerId, meta.threadId, LAST_SEQ],
    }))
      void turns.remove(key);
    void threads.remove([callerId, meta.threadId]);
  };

  return {
    async appendTurn(callerId, threadId, turn) {
      if (threadId.length > MAX_THREAD_ID_CHARS)
        throw new RangeError(`thread ids are at most ${MAX_THREAD_ID_CHARS} characters`);
      await threads.transaction(() => {
        const at = now();
        const found = threads.get([callerId, threadId]);
        const existing = live(found) ? found : undefined;
        if (found && !existing) remove(callerId, found);
        const meta: Meta = existing
          ? { ...existing, updatedAt: at, turnCount: existing.turnCount + 1 }
          : {
              threadId,
              createdAt: at,
              updatedAt: at,
              turnCount: 1,
              title: turn.user.slice(0, TITLE_CHARS),
              nextSeq: 0,
              firstSeq: 0,
            };
        void turns.put([callerId, threadId, meta.nextSeq], turn);
        meta.nextSeq++;
        while (meta.nextSeq - meta.firstSeq > retention.maxTurnsPerThread) {
          void turns.remove([callerId, threadId, meta.firstSeq]);
          meta.firstSeq++;
        }
        void threads.put([callerId, threadId], meta);
        // The per-caller cap: the least recently updated threads go first. Counted first (no values read):
        // a caller below the cap, the usual case, costs no read of its threads' summaries per new thread.
        if (
          !existing &&
          threads.getKeysCount({ start: [callerId], end: callerEnd(callerId) }) >= retention.maxThreadsPerCaller
        ) {
          const others = callerMetas(callerId).filter((m) => m.threadId !== threadId);
          const excess = others.length + 1 - retention.maxThreadsPerCaller;
          if (excess > 0) {
            others.sort((a, b) => a.updatedAt - b.updatedAt);
            for (const m of others.slice(0, excess)) remove(callerId, m);
          }
        }
      });
    },

    async getThread(callerId, threadId) {
      if (threadId.length > MAX_THREAD_ID_CHARS) return undefined;
      const meta = threads.get([callerId, threadId]);
      if (!live(meta)) return undefined;
      const list = [
        ...turns.getRange({ start: [callerId, threadId, meta.firstSeq], end: [callerId, threadId, LAST_SEQ] }),
      ].map((e) => e.value);
      const thread: Thread = { ...summary(meta), turns: list };
      return thread;
    },

    async listThreads(callerId, options = {}) {
      const list = callerMetas(callerId)
        .filter(live)
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.threadId < b.threadId ? -1 : 1))
        .map(summary);
      return options.limit !== undefined ? list.slice(0, options.limit) : list;
    },

    async deleteThread(callerId, threadId) {
      if (threadId.length > MAX_THREAD_ID_CHARS) return false;
      return threads.transaction(() => {
        const meta = threads.get([callerId, threadId]);
        if (!meta) return false;
        remove(callerId, meta);
        return live(meta);
      });
    },

    async sweep() {
      return threads.transaction(() => {
        let dropped = 0;
        for (const { key, value } of threads.getRange({})) {
          if (live(value)) continue;
          remove(String((key as (string | number)[])[0]), value);
          dropped++;
        }
        return dropped;
      });
    },
  };
}
