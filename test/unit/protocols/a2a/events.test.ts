/** The GraphEvent → A2A projection: states, artifacts, and approvals holding the task in INPUT_REQUIRED. */
import { describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { GraphEvent, GraphEventBody, UsageTotals } from '../../../../src/graph/run/events.ts';
import type { ApprovalRequest } from '../../../../src/hitl/types.ts';
import { projectEvent, type Projection } from '../../../../src/protocols/a2a/events.ts';

const ids = { taskId: 't1', contextId: 'c1' };
const usage: UsageTotals = {
  inputTokens: 1,
  outputTokens: 1,
  cachedTokens: 0,
  costUsd: 0,
  modelCalls: 1,
  toolCalls: 0,
};
let seq = 0;
const ev = (body: GraphEventBody): GraphEvent =>
  ({ ...body, runId: 't1', seq: ++seq, at: new Date().toISOString() }) as GraphEvent;
const stateOf = (e: AgentExecutionEvent) => (e.kind === 'statusUpdate' ? e.data.status?.state : undefined);
const request = (id: string): ApprovalRequest => ({
  id,
  kind: 'tool',
  runId: 't1',
  stepId: 's1',
  toolCalls: [{ toolCallId: `call-${id}`, tool: 'fs/write', args: { path: 'x' }, reason: 'destructiveHint' }],
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:05:00.000Z',
});

describe('projectEvent', () => {
  it('maps terminal run states, blocked to REJECTED with the reason', () => {
    const state: Projection = { pending: new Map() };
    const [blocked] = projectEvent(
      ev({ type: 'run.finished', status: 'blocked', error: 'token budget exhausted', usage, durationMs: 3 }),
      ids,
      state,
    );
    expect(stateOf(blocked!)).toBe(TaskState.TASK_STATE_REJECTED);
    const part = blocked?.kind === 'statusUpdate' ? blocked.data.status?.message?.parts[0]?.content : undefined;
    expect(part).toEqual({ $case: 'text', value: 'token budget exhausted' });
    const done = projectEvent(
      ev({ type: 'run.finished', status: 'completed', answer: '42', usage, durationMs: 3 }),
      ids,
      state,
    );
    expect(done.map((e) => e.kind)).toEqual(['artifactUpdate', 'statusUpdate']);
    expect(stateOf(done[1]!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('keeps the task INPUT_REQUIRED while any approval is pending, then WORKING again', () => {
    const state: Projection = { pending: new Map() };
    expect(stateOf(projectEvent(ev({ type: 'approval.requested', request: request('r1') }), ids, state)[0]!)).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const second = projectEvent(ev({ type: 'approval.requested', request: request('r2') }), ids, state)[0]!;
    const data = second.kind === 'statusUpdate' ? second.data.status?.message?.parts[1]?.content : undefined;
    expect(data?.$case === 'data' && data.value.pending.map((p: { request_id: string }) => p.request_id)).toEqual([
      'r1',
      'r2',
    ]);

    // Progress of a parallel branch does not flip the state; its step result still arrives.
    expect(projectEvent(ev({ type: 'node.started', node: 'dispatcher' }), ids, state)).toEqual([]);
    expect(
      projectEvent(
        ev({ type: 'step.finished', stepId: 's2', specialist: 'w', status: 'succeeded', output: 'ok' }),
        ids,
        state,
      ).map((e) => e.kind),
    ).toEqual(['artifactUpdate']);

    const outcome = (id: string) => ({
      requestId: id,
      decision: { kind: 'tool' as const, decisions: {} },
      resolvedBy: 'human' as const,
      actor: 'x',
      at: '',
    });
    expect(stateOf(projectEvent(ev({ type: 'approval.resolved', outcome: outcome('r1') }), ids, state)[0]!)).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    expect(stateOf(projectEvent(ev({ type: 'approval.resolved', outcome: outcome('r2') }), ids, state)[0]!)).toBe(
      TaskState.TASK_STATE_WORKING,
    );
    expect(state.pending.size).toBe(0);
  });
});

describe('projecting an event again', () => {
  it('gives its status message the same id, so applying it twice leaves the same history', () => {
    const approval = ev({ type: 'approval.requested', request: request('r9') });
    const [first] = projectEvent(approval, ids, { pending: new Map() });
    const [again] = projectEvent(approval, ids, { pending: new Map() });
    const messageId = (e: AgentExecutionEvent | undefined) =>
      e?.kind === 'statusUpdate' ? e.data.status?.message?.messageId : undefined;
    expect(messageId(first)).toBe(`t1:${approval.seq}`);
    expect(messageId(again)).toBe(messageId(first));
    const done = ev({ type: 'run.finished', status: 'failed', error: 'boom', usage, durationMs: 1 });
    expect(messageId(projectEvent(done, ids, { pending: new Map() })[0])).toBe(`t1:${done.seq}`);
  });
});
