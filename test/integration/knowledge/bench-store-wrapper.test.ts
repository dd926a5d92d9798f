/**
 * The benchmark shapes nothing inside the store: it wraps the real Kuzu store from outside
 * (bench/contenders/parley-engine.ts withoutWrites), so the store may keep its state in #private
 * fields. Registry and memory reads go to the store; run, approval and decision writes are dropped.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROSTER_RECORDS, withoutWrites } from '../../../bench/contenders/parley-engine.ts';
import { openKuzuStore } from '../../../src/knowledge/kuzu/store.ts';
import type { KnowledgeStore, RunRecord } from '../../../src/knowledge/store.ts';

const benchRun = (id: string): RunRecord => ({
  id,
  threadId: 't-1',
  query: 'write a python script',
  protocol: 'bench',
  callerId: 'bench',
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 10,
  status: 'completed',
  answer: 'done',
  tokens: 1,
  costUsd: 0,
  score: 1,
  steps: [],
});

describe("the benchmark's store wrapper (withoutWrites)", () => {
  let store: KnowledgeStore;
  beforeEach(async () => {
    store = await openKuzuStore({ path: ':memory:' });
    await store.upsertSpecialists(ROSTER_RECORDS);
  });
  afterEach(() => store.close());

  it('reads through to the real store and drops execution-memory writes', async () => {
    const wrapped = withoutWrites(store);
    expect((await wrapped.listSpecialists()).map((s) => s.id)).toEqual(ROSTER_RECORDS.map((s) => s.id).sort());
    const query = ROSTER_RECORDS[0]!.description;
    const ranked = await wrapped.retrieveSpecialists(query, 3);
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked).toEqual(await store.retrieveSpecialists(query, 3));

    await wrapped.recordRun(benchRun('dropped'));
    await wrapped.recordApproval({
      id: 'a-1',
      runId: 'dropped',
      kind: 'tool',
      request: {},
      requestedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.getRun('dropped')).toBeUndefined();
    expect(await wrapped.listApprovals('dropped')).toEqual([]);

    await store.recordRun(benchRun('kept'));
    expect((await wrapped.getRun('kept'))?.id).toBe('kept');
    expect((await wrapped.listRuns()).map((r) => r.id)).toEqual(['kept']);
  });
});
