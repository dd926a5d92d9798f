/** What every Cluster implementation does (src/cluster/types.ts): run on the in-process one and on Redis. */
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../src/cluster/types.ts';

const nextMessage = (cluster: Cluster, channel: string) =>
  new Promise<unknown>((resolve) => {
    const off = cluster.subscribe(channel, (m) => {
      off();
      resolve(m);
    });
  });

/** `open` gives two replicas of one cluster (the in-process one: the same object twice, as it has one replica). */
export function clusterContract(name: string, open: () => Promise<{ a: Cluster; b: Cluster; shared: boolean }>) {
  describe(`Cluster contract: ${name}`, () => {
    it('delivers a published message to every subscriber, as a copy', async () => {
      const { a, b } = await open();
      const onA = nextMessage(a, 'ch');
      const onB = nextMessage(b, 'ch');
      await new Promise((r) => setTimeout(r, 50)); // a Redis SUBSCRIBE is confirmed asynchronously
      const sent = { hello: 'world', n: 1 };
      await a.publish('ch', sent);
      expect(await onA).toEqual(sent);
      expect(await onB).toEqual(sent);
      expect(await onB).not.toBe(sent);
    });

    it('stops delivering after unsubscribe', async () => {
      const { a } = await open();
      const seen: unknown[] = [];
      const off = a.subscribe('quiet', (m) => seen.push(m));
      await new Promise((r) => setTimeout(r, 50));
      off();
      await a.publish('quiet', 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual([]);
    });

    it('lets exactly one claim of a key win until it expires', async () => {
      const { a, b } = await open();
      const results = await Promise.all([a.claim('k', 200), b.claim('k', 200), a.claim('k', 200)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await b.isClaimed('k')).toBe(true);
      expect(await b.isClaimed('other')).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      expect(await a.isClaimed('k')).toBe(false);
      expect(await b.claim('k', 200)).toBe(true);
    });

    it('holds a lease for one replica, renews it, frees it on release or expiry', async () => {
      const { a, b, shared } = await open();
      expect(await a.acquireLease('run:1', 300)).toBe(true);
      expect(await a.acquireLease('run:1', 300)).toBe(true); // already ours
      if (shared) expect(await b.acquireLease('run:1', 300)).toBe(false);
      // A free key is taken again (Redis restarted empty); one another replica holds is lost.
      expect(await a.renewLeases(['run:1', 'run:free'], 300)).toEqual([]);
      if (shared) expect(await b.acquireLease('run:free', 300)).toBe(false);
      expect(await b.leaseState('run:1')).toBe('held');
      expect(await b.leaseState('run:none')).toBe('missing');
      await a.releaseLease('run:1');
      // Let go, not lost: a replica taking runs over tells the two apart (replica-runs.ts).
      expect(await b.leaseState('run:1')).toBe('released');
      expect(await a.renewLeases(['run:1'], 300)).toEqual(['run:1']); // a renewal crossing the release takes nothing
      expect(await b.acquireLease('run:1', 150)).toBe(true);
      expect(await b.leaseState('run:1')).toBe('held');
      if (shared) {
        expect(await a.renewLeases(['run:1'], 300)).toEqual(['run:1']);
        await a.releaseLease('run:1'); // not a's: b still holds it
        expect(await a.acquireLease('run:1', 150)).toBe(false);
      }
      await new Promise((r) => setTimeout(r, 250));
      expect(await a.acquireLease('run:1', 150)).toBe(true);
    });

    it('keeps a value every replica reads until it is replaced, deleted or expires', async () => {
      const { a, b, shared } = await open();
      const reader = shared ? b : a;
      expect(await reader.getValue('acp:1')).toBeUndefined();
      await a.setValue('acp:1', 'http://10.0.0.1:8787', 200);
      expect(await reader.getValue('acp:1')).toBe('http://10.0.0.1:8787');
      await a.setValue('acp:1', 'http://10.0.0.2:8787', 200);
      expect(await reader.getValue('acp:1')).toBe('http://10.0.0.2:8787');
      await reader.deleteValue('acp:1');
      expect(await a.getValue('acp:1')).toBeUndefined();
      await a.setValue('acp:2', 'x', 100);
      await new Promise((r) => setTimeout(r, 200));
      expect(await reader.getValue('acp:2')).toBeUndefined();
    });

    it('is ready', async () => {
      const { a } = await open();
      expect(a.ready()).toBe(true);
    });
  });
}
