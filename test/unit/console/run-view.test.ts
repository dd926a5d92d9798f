/**
 * The console's fold of a run's GraphEvents into what the graph draws (console/src/run/run-view.ts):
 * the same fold serves a live run and a replay, so these cases are what a watcher and a reload see.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, emptyRun, foldEvents, viewFromRecord } from '../../../console/src/run/run-view.ts';
import type { GraphEvent, GraphEventBody } from '../../../src/graph/run/events.ts';
import type { ApprovalRequest } from '../../../src/hitl/types.ts';
import type { RunRecord } from '../../../src/knowledge/store.ts';

const RUN = 'run-1';
const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0, costUsd: 0.001, modelCalls: 1, toolCalls: 0 };

function events(bodies: GraphEventBody[]): GraphEvent[] {
  return bodies.map(
    (body, i) => ({ ...body, runId: RUN, seq: i + 1, at: new Date(1_000 * i).toISOString() }) as GraphEvent,
  );
}

const plan = (ids: string[]): GraphEventBody => ({
  type: 'plan.ready',
  round: 1,
  plan: {
    rationale: 'r',
    steps: ids.map((id, i) => ({
      id,
      specialist: `spec-${id}`,
      objective: `do ${id}`,
      dependsOn: i === 0 ? [] : [ids[0]!],
      phase: 'research' as const,
    })),
  },
});

const approval: ApprovalRequest = {
  id: 'ap-1',
  kind: 'tool',
  runId: RUN,
  stepId: 's1',
  toolCalls: [{ toolCallId: 'tc-1', tool: 'filesystem/write_file', args: { path: 'a' }, reason: 'destructiveHint' }],
  createdAt: new Date(0).toISOString(),
  expiresAt: new Date(60_000).toISOString(),
};

describe('the run view', () => {
  it('draws the plan, a step waiting on a human, and the step going on once the approval is resolved', () => {
    const log = events([
      { type: 'run.started', threadId: 't', query: 'q', mode: 'orchestrate', protocol: 'agui' },
      plan(['s1', 's2']),
      { type: 'step.started', stepId: 's1', specialist: 'spec-s1', objective: 'do s1', attempt: 1 },
      { type: 'tool.started', stepId: 's1', toolCallId: 'tc-1', tool: 'filesystem/write_file', args: { path: 'a' } },
      { type: 'approval.requested', request: approval },
    ]);
    const waiting = foldEvents(RUN, log);
    expect(waiting.steps.map((s) => [s.id, s.state])).toEqual([
      ['s1', 'waiting'],
      ['s2', 'pending'],
    ]);
    expect(waiting.steps[0]!.tools[0]!.state).toBe('waiting');
    expect(waiting.steps[1]!.dependsOn).toEqual(['s1']);
    expect(waiting.approvals.map((a) => a.id)).toEqual(['ap-1']);

    const before = waiting.steps;
    applyEvent(waiting, {
      type: 'approval.resolved',
      outcome: {
        requestId: 'ap-1',
        decision: { kind: 'tool', decisions: { 'tc-1': { type: 'accept' } } },
        resolvedBy: 'human',
        actor: 'key-x',
        at: '',
      },
      runId: RUN,
      seq: 6,
      at: '',
    });
    expect(waiting.steps[0]!.state).toBe('running');
    expect(waiting.approvals).toEqual([]);
    // Only the touched step is a new object: the other nodes do not re-render.
    expect(waiting.steps).not.toBe(before);
    expect(waiting.steps[1]).toBe(before[1]);
  });

  it('adds spawned agents under their parent and keeps the team messages', () => {
    const view = foldEvents(
      RUN,
      events([
        { type: 'run.started', threadId: 't', query: 'q', mode: 'dynamic', protocol: 'sse' },
        {
          type: 'plan.ready',
          round: 1,
          plan: {
            rationale: '',
            steps: [
              { id: 'm', specialist: 'manager', objective: 'lead', dependsOn: [], phase: 'research', manager: true },
            ],
          },
        },
        {
          type: 'step.spawned',
          stepId: 'm.1',
          parentStepId: 'm',
          specialist: 'researcher',
          objective: 'dig',
          role: 'worker',
        },
        { type: 'message.sent', from: 'm.1', to: 'm', preview: 'found it' },
        { type: 'context.written', stepId: 'm.1', key: 'facts', preview: 'x' },
      ]),
    );
    expect(view.steps.map((s) => [s.id, s.parentStepId, s.manager])).toEqual([
      ['m', undefined, true],
      ['m.1', 'm', false],
    ]);
    expect(view.messages).toMatchObject([{ from: 'm.1', to: 'm', preview: 'found it' }]);
    expect(view.teamMemory).toMatchObject([{ key: 'facts' }]);
  });

  it('ends with the outcome, the usage and the answer, and marks steps cut off by the end as cancelled', () => {
    const view = foldEvents(
      RUN,
      events([
        { type: 'run.started', threadId: 't', query: 'q', mode: 'orchestrate', protocol: 'sse' },
        plan(['s1']),
        { type: 'step.started', stepId: 's1', specialist: 'spec-s1', objective: 'do s1', attempt: 1 },
        { type: 'verify.result', round: 1, score: 0.4, feedback: 'thin', failedStepIds: ['s1'], next: 'exhausted' },
        { type: 'answer.delta', text: 'Hel' },
        { type: 'answer.delta', text: 'lo' },
        { type: 'run.finished', status: 'cancelled', usage, durationMs: 12, error: 'cancelled by the client' },
      ]),
    );
    expect(view).toMatchObject({ state: 'cancelled', answer: 'Hello', usage, durationMs: 12 });
    expect(view.steps[0]!.state).toBe('cancelled');
    expect(view.verifier).toEqual([{ round: 1, score: 0.4, feedback: 'thin', next: 'exhausted' }]);
  });

  it('records the L0 nodes the run went through, with their times', () => {
    const view = foldEvents(
      RUN,
      events([
        { type: 'run.started', threadId: 't', query: 'q', mode: 'council', protocol: 'sse' },
        { type: 'node.started', node: 'router' },
        { type: 'node.finished', node: 'router', durationMs: 3, next: 'council' },
        { type: 'node.started', node: 'council' },
      ]),
    );
    expect(view.path).toEqual([{ node: 'router', durationMs: 3 }, { node: 'council' }]);
    expect(view.node).toBe('council');
  });

  it('ignores an event it has already folded (a reconnect that overlaps)', () => {
    const log = events([
      { type: 'run.started', threadId: 't', query: 'q', mode: 'direct', protocol: 'sse' },
      { type: 'answer.delta', text: 'once' },
    ]);
    const view = emptyRun(RUN);
    for (const e of [...log, log[1]!]) applyEvent(view, e);
    expect(view.answer).toBe('once');
    expect(view.eventCount).toBe(2);
  });

  it('folds a 50-step run of 2,000 events, keeping each step’s streamed text bounded', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `s${i + 1}`);
    const bodies: GraphEventBody[] = [
      { type: 'run.started', threadId: 't', query: 'q', mode: 'orchestrate', protocol: 'sse' },
      plan(ids),
    ];
    for (const id of ids)
      bodies.push({ type: 'step.started', stepId: id, specialist: `spec-${id}`, objective: '', attempt: 1 });
    while (bodies.length < 1_950)
      bodies.push({ type: 'step.delta', stepId: ids[bodies.length % 50]!, text: 'x'.repeat(200) });
    for (const id of ids)
      bodies.push({ type: 'step.finished', stepId: id, specialist: `spec-${id}`, status: 'succeeded' });
    const view = foldEvents(RUN, events(bodies));
    expect(view.eventCount).toBe(2_000);
    expect(view.steps.every((s) => s.state === 'succeeded')).toBe(true);
    expect(Math.max(...view.steps.map((s) => s.text.length))).toBeLessThanOrEqual(4_000);
  });

  it('draws a run whose event log is gone from its record in execution memory', () => {
    const record: RunRecord = {
      id: RUN,
      threadId: 't',
      query: 'q',
      protocol: 'a2a',
      callerId: 'anonymous',
      startedAt: new Date(0).toISOString(),
      durationMs: 40,
      status: 'completed',
      answer: 'done',
      tokens: 10,
      costUsd: 0,
      score: 0.9,
      plan: {
        rationale: '',
        steps: [
          { id: 's1', specialist: 'a', objective: 'o', dependsOn: [], phase: 'research' },
          { id: 's2', specialist: 'b', objective: 'o', dependsOn: ['s1'], phase: 'execution' },
        ],
      },
      steps: [
        {
          id: 's1',
          specialist: 'a',
          objective: 'o',
          status: 'succeeded',
          durationMs: 5,
          tokens: 3,
          costUsd: 0,
          toolCalls: [{ tool: 'fs/read', status: 'ok' }],
        },
        {
          id: 's2',
          specialist: 'b',
          objective: 'o',
          status: 'failed',
          error: 'boom',
          durationMs: 5,
          tokens: 3,
          costUsd: 0,
          toolCalls: [],
        },
      ],
    };
    const view = viewFromRecord(record);
    expect(view.steps.map((s) => [s.id, s.state, s.dependsOn])).toEqual([
      ['s1', 'succeeded', []],
      ['s2', 'failed', ['s1']],
    ]);
    expect(view.steps[0]!.tools).toMatchObject([{ tool: 'fs/read', state: 'ok' }]);
    expect(view).toMatchObject({ state: 'completed', answer: 'done', protocol: 'a2a' });
  });
});
