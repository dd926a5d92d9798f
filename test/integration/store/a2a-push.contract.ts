/**
 * The A2APushStore contract: every backend (LMDB and memory today, Postgres next) runs it. `open`
 * returns a fresh, empty store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { A2APushStore, PushDelivery, TaskScope } from '../../../src/store/a2a-push/types.ts';

export interface OpenedA2APushStore {
  store: A2APushStore;
  close(): Promise<void>;
}

const ALICE: TaskScope = { tenant: '', owner: 'alice' };
const BOB: TaskScope = { tenant: '', owner: 'bob' };

const config = (id: string, url = `https://hooks.example.com/${id}`) => ({
  id,
  config: { id, url, token: `token-${id}` },
  wireVersion: '1.0',
});

const delivery = (scope: TaskScope, taskId: string, configId: string, body: string): Omit<PushDelivery, 'seq'> => ({
  scope,
  taskId,
  configId,
  url: `https://hooks.example.com/${configId}`,
  headers: { 'Content-Type': 'application/a2a+json' },
  body,
  attempts: 0,
  notBefore: 0,
  createdAt: 0,
});

export function a2aPushStoreContract(name: string, open: () => Promise<OpenedA2APushStore>): void {
  describe(`A2APushStore contract: ${name}`, () => {
    let opened: OpenedA2APushStore | undefined;
    const fresh = async () => (opened = await open()).store;
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });

    it('keeps configs per task and scope; another owner sees none and cannot delete them', async () => {
      const store = await fresh();
      await store.putConfig(ALICE, 't1', config('a'));
      await store.putConfig(ALICE, 't1', config('b'));
      await store.putConfig(ALICE, 't2', config('c'));
      expect((await store.listConfigs(ALICE, 't1')).map((c) => c.id).sort()).toEqual(['a', 'b']);
      expect(await store.listConfigs(BOB, 't1')).toEqual([]);
      await store.deleteConfig(BOB, 't1');
      expect(await store.listConfigs(ALICE, 't1')).toHaveLength(2);
      // Replacing a config keeps one entry under its id.
      await store.putConfig(ALICE, 't1', config('a', 'https://hooks.example.com/moved'));
      const a = (await store.listConfigs(ALICE, 't1')).find((c) => c.id === 'a');
      expect(a?.config.url).toBe('https://hooks.example.com/moved');
      expect(await store.listConfigs(ALICE, 't1')).toHaveLength(2);
    });

    it('deletes one config, or all of a task, with their queued deliveries', async () => {
      const store = await fresh();
      await store.putConfig(ALICE, 't1', config('a'));
      await store.putConfig(ALICE, 't1', config('b'));
      await store.enqueue([delivery(ALICE, 't1', 'a', '1'), delivery(ALICE, 't1', 'b', '2')]);
      await store.deleteConfig(ALICE, 't1', 'a');
      expect((await store.listConfigs(ALICE, 't1')).map((c) => c.id)).toEqual(['b']);
      expect((await store.queued(10)).map((d) => d.configId)).toEqual(['b']);
      await store.deleteConfig(ALICE, 't1');
      expect(await store.listConfigs(ALICE, 't1')).toEqual([]);
      expect(await store.queued(10)).toEqual([]);
    });

    it('queues deliveries in order with increasing seqs, counts them per task, reschedules and removes', async () => {
      const store = await fresh();
      const [one, two] = await store.enqueue([delivery(ALICE, 't1', 'a', '1'), delivery(ALICE, 't1', 'a', '2')]);
      const [three] = await store.enqueue([delivery(BOB, 't1', 'z', '3')]);
      expect(one!.seq).toBeLessThan(two!.seq);
      expect(two!.seq).toBeLessThan(three!.seq);
      expect((await store.queued(10)).map((d) => d.body)).toEqual(['1', '2', '3']);
      expect((await store.queued(2)).map((d) => d.body)).toEqual(['1', '2']);
      expect(await store.countQueued(ALICE, 't1')).toBe(2);
      expect(await store.countQueued(BOB, 't1')).toBe(1);
      await store.reschedule({ ...one!, attempts: 2, notBefore: 1234, lastError: 'the webhook answered 503' });
      expect((await store.queued(1))[0]).toMatchObject({
        attempts: 2,
        notBefore: 1234,
        lastError: 'the webhook answered 503',
      });
      await store.remove(one!.seq);
      // A removed delivery is not brought back by a late reschedule.
      await store.reschedule({ ...one!, attempts: 3 });
      expect((await store.queued(10)).map((d) => d.body)).toEqual(['2', '3']);
    });
  });
}
