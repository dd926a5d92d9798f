import { describe, expect, it } from 'vitest';
import { GraphPlanSchema, type GraphPlan } from '../../../src/graph/planning/graph-plan.ts';
import { runRecordOf, type FinishedRun } from '../../../src/graph/run/record.ts';
import type { StepOutcome } from '../../../src/graph/planning/scheduler.ts';
import type { StepLineage, UsageTotals } from '../../../src/graph/run/events.ts';
import type { Verification } from '../../../src/graph/run/state.ts';

const usage = (input: number, output: number, costUsd: number | null, modelCalls = 1): UsageTotals => ({
  inputTokens: input,
  outputTokens: output,
  cachedTokens: 0,
  costUsd,
  modelCalls,
  toolCalls: 0,
});

const lineage = (durationMs: number, u: UsageTotals, toolCalls: StepLineage['toolCalls'] = []): StepLineage => ({
  specialist: 'writer',
  kind: 'prompt',
  startedAt: '2026-11-23T10:00:00.000Z',
  finishedAt: '2026-11-23T10:00:01.000Z',
  durationMs,
  attempt: 1,
  toolCalls,
  sources: [],
  usage: u,
});

const plan = (...ids: string[]): GraphPlan =>
  GraphPlanSchema.parse({
    rationale: 'test',
    steps: ids.map((id, i) => ({
      id,
      specialist: i === 0 ? 'researcher' : 'writer',
      objective: `objective of ${id}`,
      dependsOn: i ? [ids[i - 1]] : [],
    })),
  });

const verification = (round: number, score: number): Verification => ({
  round,
  score,
  feedback: `round ${round}`,
  failedStepIds: [],
});

function finishedRun(overrides: Partial<FinishedRun> = {}): FinishedRun {
  return {
    id: 'run-1',
    threadId: 'thread-1',
    request: { query: 'Write the docs', protocol: 'test' },
    callerId: 'alice',
    startedAt: Date.parse('2026-11-23T10:00:00.000Z'),
    results: new Map(),
    meter: { totals: usage(120, 80, 0.002, 3) },
    ...overrides,
  };
}

describe('runRecordOf: a finished run as its execution-memory record', () => {
  it('maps the run and each planned step, in plan order, with the objective as run, figures and tool calls', () => {
    const p = plan('s1', 's2');
    const results = new Map<string, StepOutcome>([
      [
        's2',
        {
          stepId: 's2',
          specialist: 'writer',
          status: 'succeeded',
          objective: 'write from: the facts',
          output: 'the docs',
          lineage: lineage(900, usage(30, 20, null)),
        },
      ],
      [
        's1',
        {
          stepId: 's1',
          specialist: 'researcher',
          status: 'succeeded',
          objective: 'objective of s1',
          output: 'the facts',
          lineage: lineage(400, usage(50, 10, 0.001), [
            { toolCallId: 't1', tool: 'fs/read_file', status: 'ok' },
            { toolCallId: 't2', tool: 'fs/write_file', status: 'denied' },
          ]),
        },
      ],
    ]);
    const record = runRecordOf(
      finishedRun({
        plan: p,
        results,
        verification: verification(1, 0.9),
        answer: 'the answer',
        teamConfigId: 'team-7',
      }),
      { status: 'completed' },
      1500,
    );
    expect(record).toEqual({
      id: 'run-1',
      threadId: 'thread-1',
      query: 'Write the docs',
      protocol: 'test',
      callerId: 'alice',
      startedAt: '2026-11-23T10:00:00.000Z',
      durationMs: 1500,
      status: 'completed',
      answer: 'the answer',
      tokens: 200,
      costUsd: 0.002,
      score: 0.9,
      plan: p,
      steps: [
        {
          id: 's1',
          specialist: 'researcher',
          objective: 'objective of s1',
          status: 'succeeded',
          output: 'the facts',
          durationMs: 400,
          tokens: 60,
          costUsd: 0.001,
          toolCalls: [
            { tool: 'fs/read_file', status: 'ok' },
            { tool: 'fs/write_file', status: 'denied' },
          ],
        },
        {
          id: 's2',
          specialist: 'writer',
          objective: 'write from: the facts',
          status: 'succeeded',
          output: 'the docs',
          durationMs: 900,
          tokens: 50,
          costUsd: null,
          toolCalls: [],
        },
      ],
      teamConfigId: 'team-7',
    });
  });

  it('records a step that never ran as skipped with zero figures, and a failed step with its error', () => {
    const p = plan('s1', 's2');
    const results = new Map<string, StepOutcome>([
      [
        's1',
        { stepId: 's1', specialist: 'researcher', status: 'failed', objective: 'objective of s1', error: 'tool down' },
      ],
    ]);
    const record = runRecordOf(
      finishedRun({ plan: p, results }),
      { status: 'failed', error: 'every step failed' },
      700,
    );
    expect(record?.status).toBe('failed');
    expect(record?.error).toBe('every step failed');
    expect(record?.score).toBeNull();
    expect(record?.steps).toEqual([
      {
        id: 's1',
        specialist: 'researcher',
        objective: 'objective of s1',
        status: 'failed',
        error: 'tool down',
        durationMs: 0,
        tokens: 0,
        costUsd: 0,
        toolCalls: [],
      },
      {
        id: 's2',
        specialist: 'writer',
        objective: 'objective of s2',
        status: 'skipped',
        durationMs: 0,
        tokens: 0,
        costUsd: 0,
        toolCalls: [],
      },
    ]);
    expect(record).not.toHaveProperty('answer');
  });

  it('records the best round (plan, results, score) when verification rounds ran out, not the last one', () => {
    const best = plan('b1');
    const last = plan('l1', 'l2');
    const bestResults = new Map<string, StepOutcome>([
      [
        'b1',
        { stepId: 'b1', specialist: 'researcher', status: 'succeeded', objective: 'objective of b1', output: 'good' },
      ],
    ]);
    const record = runRecordOf(
      finishedRun({
        plan: last,
        results: new Map(),
        verification: verification(3, 0.4),
        best: { verification: verification(2, 0.7), plan: best, results: bestResults },
        exhausted: 'verification rounds ran out',
        answer: 'best so far',
      }),
      { status: 'completed' },
      3000,
    );
    expect(record?.plan).toBe(best);
    expect(record?.score).toBe(0.7);
    expect(record?.steps.map((s) => [s.id, s.status, s.output])).toEqual([['b1', 'succeeded', 'good']]);
  });

  it('uses the current round while rounds remain, even with a better earlier round kept aside', () => {
    const current = plan('c1');
    const record = runRecordOf(
      finishedRun({
        plan: current,
        verification: verification(2, 0.8),
        best: { verification: verification(1, 0.9), plan: plan('b1'), results: new Map() },
      }),
      { status: 'completed' },
      10,
    );
    expect(record?.plan).toBe(current);
    expect(record?.score).toBe(0.8);
  });

  it('gives a run without a plan (a direct answer) no plan and no steps', () => {
    const record = runRecordOf(finishedRun({ answer: 'hello' }), { status: 'completed' }, 5);
    expect(record).toMatchObject({ status: 'completed', answer: 'hello', score: null, steps: [] });
    expect(record).not.toHaveProperty('plan');
    expect(record).not.toHaveProperty('teamConfigId');
  });

  it('keeps no record of a run refused before any model call, but keeps one blocked after calls were made', () => {
    const refused = finishedRun({ meter: { totals: usage(0, 0, 0, 0) } });
    expect(runRecordOf(refused, { status: 'blocked', error: 'rate limit', retryAfterMs: 1000 }, 1)).toBeUndefined();
    const stopped = runRecordOf(finishedRun(), { status: 'blocked', error: 'token budget' }, 1);
    expect(stopped).toMatchObject({ status: 'blocked', error: 'token budget', tokens: 200, costUsd: 0.002 });
  });
});
