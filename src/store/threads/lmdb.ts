/**
 * The embedded ThreadStore over the run store's LMDB environment (kv.ts). Three named databases:
 * `threads` keyed [callerId, threadId] holds a thread's summary and the seq of its next turn;
 * `thread-turns` keyed [callerId, threadId, seq] holds the turns; `thread-last-use` keyed
 * [callerId, updatedAt, threadId] (no value) orders a caller's threads by last use, so the per-caller cap
 * finds the least recently used ones without reading every summary. The caller leads every key, so a
 * caller's range never reaches another's. Each append is one write transaction (summary, turn,
 * trimming, last use and the per-caller cap together), committed before appendTurn resolves.
 *
 * The last-use index came after the first data dirs (2026-11-27): a caller whose index does not hold
 * exactly one key per thread (a data dir written before it) has it rebuilt from the summaries the first
 * time the cap is reached, once; its threads were all there all along.
 */
import type { Kv, KvKey } from '../kv.ts';
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
  const lastUse = kv.db<null>('thread-last-use');

  const live = (meta: Meta | undefined): meta is Meta => !!meta && now() - meta.updatedAt <= retention.maxAgeMs;
  const summary = ({ threadId, createdAt, updatedAt, turnCount, title }: Meta): ThreadSummary => ({
    threadId,
    createdAt,
    updatedAt,
    turnCount,
    title,
  });
  /** Every key of one caller, in any of the three databases. */
  const callerRange = (callerId: string) => ({ start: [callerId], end: callerEnd(callerId) });
  const callerMetas = (callerId: string) => [...threads.getRange(callerRange(callerId))].map((e) => e.value);

  const lastUseKey = (callerId: string, meta: Meta) => [callerId, meta.updatedAt, meta.threadId];

  /** Removes a thread's summary, turns and last use (inside a write transaction). */
  const remove = (callerId: string, meta: Meta) => {
    for (const { key } of turns.getRange({
      start: [callerId, meta.threadId, 0],
      end: [callerId, meta.threadId, LAST_SEQ],
    }))
      void turns.remove(key);
    void threads.remove([callerId, meta.threadId]);
    void lastUse.remove(lastUseKey(callerId, meta));
  };

  /** A caller's last-use keys, rebuilt from its summaries (inside a write transaction). */
  const rebuildLastUse = (callerId: string) => {
    for (const key of [...lastUse.getKeys(callerRange(callerId))]) void lastUse.remove(key);
    for (const meta of callerMetas(callerId)) void lastUse.put(lastUseKey(callerId, meta), null);
  };

  /**
   * Drops the caller's least recently used threads beyond the cap, `keep` aside (inside a write
   * transaction, `count` threads stored). Walks the last-use index oldest first: no summary is read but
   * those dropped.
   */
  const enforceCap = (callerId: string, keep: string, count: number) => {
    if (lastUse.getKeysCount(callerRange(callerId)) !== count) rebuildLastUse(callerId);
    let excess = count - retention.maxThreadsPerCaller;
    const dropped: Meta[] = [];
    const missed: KvKey[] = [];
    for (const key of lastUse.getKeys(callerRange(callerId))) {
      if (excess <= 0) break;
      const [, updatedAt, threadId] = key as [string, number, string];
      if (threadId === keep) continue;
      const meta = threads.get([callerId, threadId]);
      // Not this thread's last use (a write the index missed): the key goes, the thread stays.
      if (meta?.updatedAt !== updatedAt) missed.push(key);
      else {
        dropped.push(meta);
        excess--;
      }
    }
    // Removed after the walk, not during it.
    for (const key of missed) void lastUse.remove(key);
    for (const meta of dropped) remove(callerId, meta);
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
        if (existing) void lastUse.remove(lastUseKey(callerId, existing));
        void lastUse.put(lastUseKey(callerId, meta), null);
        // The per-caller cap: the least recently updated threads go first. Counted first (no values read):
        // a caller below the cap, the usual case, costs no read of its threads' summaries per new thread.
        if (!existing) {
          const count = threads.getKeysCount(callerRange(callerId));
          if (count > retention.maxThreadsPerCaller) enforceCap(callerId, threadId, count);
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
