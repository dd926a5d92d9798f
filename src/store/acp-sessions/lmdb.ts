/**
 * The embedded AcpSessionStore over the run store's LMDB environment (kv.ts): one named database
 * `acp-sessions` keyed [callerId, sessionId], so a caller's range never reaches another's. Each put is
 * one write transaction (the record and the per-caller cap), committed before it resolves.
 */
import type { Kv } from '../kv.ts';
import {
  MAX_ACP_SESSION_ID_CHARS,
  type AcpSessionRecord,
  type AcpSessionRetention,
  type AcpSessionStore,
} from './types.ts';

const callerEnd = (callerId: string) => [`${callerId}\u0000`];

export function createLmdbAcpSessionStore(
  kv: Kv,
  retention: AcpSessionRetention,
  now: () => number = Date.now,
): AcpSessionStore {
  const db = kv.db<AcpSessionRecord>('acp-sessions');
  const live = (r: AcpSessionRecord | undefined): r is AcpSessionRecord =>
    !!r && now() - r.updatedAt <= retention.maxAgeMs;
  const callerRecords = (callerId: string) =>
    [...db.getRange({ start: [callerId], end: callerEnd(callerId) })].map((e) => e.value);

  return {
    async put(callerId, record) {
      if (record.sessionId.length > MAX_ACP_SESSION_ID_CHARS)
        throw new RangeError(`session ids are at most ${MAX_ACP_SESSION_ID_CHARS} characters`);
      await db.transaction(() => {
        const isNew = !db.get([callerId, record.sessionId]);
        void db.put([callerId, record.sessionId], record);
        if (!isNew) return;
        const others = callerRecords(callerId).filter((r) => r.sessionId !== record.sessionId);
        const excess = others.length + 1 - retention.maxPerCaller;
        if (excess <= 0) return;
        others.sort((a, b) => a.updatedAt - b.updatedAt);
        for (const r of others.slice(0, excess)) void db.remove([callerId, r.sessionId]);
      });
    },
    async get(callerId, sessionId) {
      if (sessionId.length > MAX_ACP_SESSION_ID_CHARS) return undefined;
      const record = db.get([callerId, sessionId]);
      return live(record) ? record : undefined;
    },
    async list(callerId, options = {}) {
      return callerRecords(callerId)
        .filter(live)
        .filter((r) => options.cwd === undefined || r.cwd === options.cwd)
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.sessionId < b.sessionId ? -1 : 1));
    },
  };
}
