/** Small readers over a run's events for the engine tests. */
import type { GraphEvent, GraphEventOf, GraphEventType } from '../../../src/graph/events.ts';

export function ofType<T extends GraphEventType>(events: GraphEvent[], type: T): GraphEventOf<T>[] {
  return events.filter((e): e is GraphEventOf<T> => e.type === type);
}

export const ms = (iso: string) => Date.parse(iso);

/** Requests the scripted server saw for one run, optionally of one schema name. */
export function callsOf<R extends { runId?: string; schemaName?: string }>(requests: R[], runId: string, schemaName?: string): R[] {
  return requests.filter((r) => r.runId === runId && (schemaName === undefined || r.schemaName === schemaName));
}

import type { GraphPlan } from '../../../src/graph/graph-plan.ts';
import type { KnowledgeStore } from '../../../src/knowledge/store.ts';

/**
 * Teaches the store a proven team for `query` by recording a successful run with `plan`, so the
 * router's stage 1 reuses exactly this plan: the way to give the engine an arbitrary DAG shape.
 */
export async function provenTeam(store: KnowledgeStore, query: string, plan: GraphPlan): Promise<void> {
  await store.recordRun({
    id: `seed-${Math.random().toString(36).slice(2)}`,
    threadId: 'seed',
    query,
    protocol: 'test',
    // The caller test runs have (none given: the one local caller): teams are reused within one caller only.
    callerId: 'anonymous',
    startedAt: new Date().toISOString(),
    durationMs: 1,
    status: 'completed',
    answer: 'seeded',
    tokens: 0,
    costUsd: 0,
    score: 0.95,
    plan,
    steps: plan.steps.map((s) => ({
      id: s.id,
      specialist: s.specialist,
      objective: s.objective,
      status: 'succeeded',
      output: 'ok',
      durationMs: 1,
      tokens: 0,
      costUsd: 0,
      toolCalls: [],
    })),
  });
}
