/**
 * The AcpSessionStore contract: every backend (LMDB, Postgres) runs it. `open` gets the retention and a
 * clock the suite moves; it returns a fresh, empty store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AcpSessionRecord, AcpSessionRetention, AcpSessionStore } from '../../../src/store/acp-sessions/types.ts';

export interface OpenedAcpSessionStore {
  store: AcpSessionStore;
  close(): Promise<void>;
}

const session = (id: string, at: number, cwd = '/work/a'): AcpSessionRecord => ({
  sessionId: id,
  cwd,
  mode: 'auto',
  mcpServers: [{ name: 'x', command: 'x', args: [], env: [] }],
  createdAt: at,
  updatedAt: at,
  title: `about ${id}`,
});

export function acpSessionStoreContract(
  name: string,
  open: (retention: AcpSessionRetention, now: () => number) => Promise<OpenedAcpSessionStore>,
): void {
  describe(`AcpSessionStore contract: ${name}`, () => {
    let clock = 1_000_000;
    const opened: OpenedAcpSessionStore[] = [];
    const make = async (retention: Partial<AcpSessionRetention> = {}) => {
      const o = await open({ maxPerCaller: 10, maxAgeMs: 60_000, ...retention }, () => clock);
      opened.push(o);
      return o.store;
    };
    afterEach(async () => {
      for (const o of opened.splice(0)) await o.close();
    });

    it('keeps a session per caller; another caller neither gets nor lists it', async () => {
      const store = await make();
      await store.put('alice', session('s1', clock));
      expect(await store.get('alice', 's1')).toEqual(session('s1', clock));
      expect(await store.get('bob', 's1')).toBeUndefined();
      expect(await store.list('bob')).toEqual([]);
    });

    it('lists most recently updated first, optionally by folder; a put replaces the record', async () => {
      const store = await make();
      await store.put('alice', session('s1', clock - 3, '/work/a'));
      await store.put('alice', session('s2', clock - 2, '/work/b'));
      await store.put('alice', session('s3', clock - 1, '/work/a'));
      expect((await store.list('alice')).map((s) => s.sessionId)).toEqual(['s3', 's2', 's1']);
      expect((await store.list('alice', { cwd: '/work/a' })).map((s) => s.sessionId)).toEqual(['s3', 's1']);
      await store.put('alice', { ...session('s1', clock, '/work/a'), mode: 'council' });
      expect((await store.list('alice')).map((s) => s.sessionId)).toEqual(['s1', 's3', 's2']);
      expect((await store.get('alice', 's1'))?.mode).toBe('council');
    });

    it('drops the least recently updated beyond the per-caller cap, and never returns an expired one', async () => {
      const store = await make({ maxPerCaller: 2, maxAgeMs: 1000 });
      await store.put('alice', session('s1', clock - 3));
      await store.put('alice', session('s2', clock - 2));
      await store.put('alice', session('s3', clock - 1));
      expect((await store.list('alice')).map((s) => s.sessionId)).toEqual(['s3', 's2']);
      clock += 5000;
      expect(await store.get('alice', 's3')).toBeUndefined();
      expect(await store.list('alice')).toEqual([]);
    });
  });
}
