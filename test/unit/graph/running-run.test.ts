/**
 * GET /api/runs/:id from the run store (graph/durable/running-run.ts): a fork's origin comes from its
 * stored request while it runs, from its record once it finished, and from the request for a finished
 * fork whose record was stored before records named it. The HTTP path is fork-record.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runningRunsOf } from '../../../src/graph/durable/running-run.ts';
import type { RunStore, StoredRun } from '../../../src/store/runs/run-store.ts';

const origin = { runId: 'parent', checkpoint: 'cp-3' };

function storeOf(runs: StoredRun[]): Pick<RunStore, 'runs' | 'checkpoints' | 'approvals'> {
  const byId = new Map(runs.map((r) => [r.id, r]));
  return {
    runs: {
      put: () => Promise.resolve(),
      get: (id) => Promise.resolve(byId.get(id)),
      listUnfinished: () => Promise.resolve(runs.filter((r) => r.status === 'running')),
      listFinished: () => Promise.resolve(runs.filter((r) => r.status !== 'running')),
      markRemembered: () => Promise.resolve(),
    },
    checkpoints: {
      savePlan: () => Promise.resolve(),
      saveStep: () => Promise.resolve(),
      load: () => Promise.resolve(undefined),
    },
    approvals: {
      putPending: () => Promise.resolve(),
      decide: () => Promise.resolve(),
      get: () => Promise.resolve(undefined),
      listPending: () => Promise.resolve([]),
      listForRun: () => Promise.resolve([]),
    },
  };
}

const stored = (id: string, request: object, extra: Partial<StoredRun> = {}): StoredRun => ({
  id,
  callerId: 'tester',
  threadId: id,
  status: 'running',
  request: { query: 'notes', protocol: 'sse', ...request },
  createdAt: 1_000,
  updatedAt: 1_000,
  ...extra,
});

describe('a run as the run store answers it', () => {
  const memory = (id: string, extra: object = {}) => ({ id, query: 'notes', status: 'completed', steps: [], ...extra });
  const runs = runningRunsOf(
    storeOf([
      stored('fork-running', { forkedFrom: origin }),
      stored('plain-running', {}),
      stored(
        'fork-done',
        { forkedFrom: origin },
        { status: 'completed', memory: memory('fork-done', { forkedFrom: origin }) },
      ),
      // Finished before records named a fork's parent: the stored request still does.
      stored('fork-done-early', { forkedFrom: origin }, { status: 'completed', memory: memory('fork-done-early') }),
      stored('plain-done', {}, { status: 'completed', memory: memory('plain-done') }),
    ]),
  );

  it("names a fork's parent while it runs, in its detail and the list; a plain run has none", async () => {
    expect((await runs.get('fork-running'))?.detail).toMatchObject({ status: 'running', forkedFrom: origin });
    expect((await runs.get('plain-running'))?.detail).not.toHaveProperty('forkedFrom');
    const listed = (await runs.list(undefined, undefined)) as { id: string; forkedFrom?: unknown }[];
    expect(listed.map((r) => [r.id, r.forkedFrom])).toEqual([
      ['fork-running', origin],
      ['plain-running', undefined],
    ]);
  });

  it("names a finished fork's parent from its record, or from its request when the record predates it", async () => {
    expect((await runs.get('fork-done'))?.detail).toMatchObject({ status: 'completed', forkedFrom: origin });
    expect((await runs.get('fork-done-early'))?.detail).toMatchObject({ status: 'completed', forkedFrom: origin });
    expect((await runs.get('plain-done'))?.detail).not.toHaveProperty('forkedFrom');
  });
});
