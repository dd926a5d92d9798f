import { describe, expect, it } from 'vitest';
import { scheduleSteps, type StepRun } from '../../../src/graph/planning/scheduler.ts';
import { GraphPlanSchema, type PlanStep } from '../../../src/graph/planning/graph-plan.ts';

const steps = (raw: unknown[]): PlanStep[] => GraphPlanSchema.parse({ steps: raw }).steps;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

describe('scheduleSteps', () => {
  it('starts a step as soon as its own dependencies finish, not when a wave ends', async () => {
    const log: string[] = [];
    const durations: Record<string, number> = { a: 10, slow: 80, b: 10 };
    const result = await scheduleSteps({
      steps: steps([
        { id: 'a', specialist: 's', objective: 'A' },
        { id: 'slow', specialist: 's', objective: 'S' },
        { id: 'b', specialist: 's', objective: 'after {{a.result}}', dependsOn: ['a'] },
      ]),
      concurrency: 4,
      defaultTimeoutMs: 1000,
      signal: new AbortController().signal,
      run: async (step, objective): Promise<StepRun> => {
        log.push(`start ${step.id}: ${objective}`);
        await sleep(durations[step.id]!);
        log.push(`end ${step.id}`);
        return { ok: true, output: `${step.id}-out` };
      },
    });
    const startB = log.indexOf('start b: after <parley:result step="a">a-out</parley:result>');
    expect(startB).toBeGreaterThan(log.indexOf('end a'));
    expect(startB).toBeLessThan(log.indexOf('end slow'));
    expect([...result.values()].every((o) => o.status === 'succeeded')).toBe(true);
  });

  it('skips dependents of a failed step transitively while other branches complete', async () => {
    const result = await scheduleSteps({
      steps: steps([
        { id: 'bad', specialist: 's', objective: 'x' },
        { id: 'child', specialist: 's', objective: 'y', dependsOn: ['bad'] },
        { id: 'grandchild', specialist: 's', objective: 'z', dependsOn: ['child'] },
        { id: 'ok', specialist: 's', objective: 'w' },
      ]),
      concurrency: 2,
      defaultTimeoutMs: 1000,
      signal: new AbortController().signal,
      run: async (step) => {
        if (step.id === 'bad') throw new Error('boom');
        return { ok: true, output: 'fine' };
      },
    });
    expect(result.get('bad')).toMatchObject({ status: 'failed', error: 'boom' });
    expect(result.get('child')).toMatchObject({ status: 'skipped' });
    expect(result.get('grandchild')).toMatchObject({ status: 'skipped' });
    expect(result.get('ok')).toMatchObject({ status: 'succeeded', output: 'fine' });
  });

  it('honours the concurrency limit and the per-step timeout', async () => {
    let running = 0;
    let peak = 0;
    const result = await scheduleSteps({
      steps: steps([
        ...['a', 'b', 'c', 'd'].map((id) => ({ id, specialist: 's', objective: id })),
        { id: 'hang', specialist: 's', objective: 'h', timeoutMs: 30 },
      ]),
      concurrency: 2,
      defaultTimeoutMs: 1000,
      signal: new AbortController().signal,
      run: async (step, _objective, signal) => {
        running++;
        peak = Math.max(peak, running);
        try {
          await sleep(step.id === 'hang' ? 10_000 : 15, signal);
          return { ok: true, output: step.id };
        } finally {
          running--;
        }
      },
    });
    expect(peak).toBe(2);
    expect(result.get('hang')).toMatchObject({ status: 'failed', error: 'step "hang" timed out after 30 ms' });
  });

  it('cancels in-flight and unstarted steps when the run signal aborts', async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const pending = scheduleSteps({
      steps: steps([
        { id: 'a', specialist: 's', objective: 'x' },
        { id: 'b', specialist: 's', objective: 'y', dependsOn: ['a'] },
      ]),
      concurrency: 2,
      defaultTimeoutMs: 10_000,
      signal: controller.signal,
      run: async (_step, _o, signal) => {
        seen.push(signal);
        await sleep(10_000, signal);
        return { ok: true, output: '' };
      },
    });
    await sleep(10);
    controller.abort(new Error('cancel'));
    const result = await pending;
    expect(seen[0]!.aborted).toBe(true);
    expect(result.get('a')!.status).toBe('cancelled');
    expect(['cancelled', 'skipped']).toContain(result.get('b')!.status);
  });

  it('uses prior outcomes for dependencies outside the batch', async () => {
    const result = await scheduleSteps({
      steps: steps([
        { id: 'x', specialist: 's', objective: 'use {{r.result}}', dependsOn: ['r'] },
        { id: 'y', specialist: 's', objective: 'y', dependsOn: ['bad'] },
      ]),
      prior: new Map([
        ['r', { stepId: 'r', specialist: 's', status: 'succeeded', objective: '', output: 'R' }],
        ['bad', { stepId: 'bad', specialist: 's', status: 'failed', objective: '', error: 'e' }],
      ]),
      concurrency: 2,
      defaultTimeoutMs: 1000,
      signal: new AbortController().signal,
      run: async (_s, objective) => ({ ok: true, output: objective }),
    });
    expect(result.get('x')).toMatchObject({
      status: 'succeeded',
      output: 'use <parley:result step="r">R</parley:result>',
    });
    expect(result.get('y')).toMatchObject({ status: 'skipped' });
  });

  it('skips, and does not wait for, a step whose dependency was skipped for an outside reason, whatever the step order', async () => {
    // y is listed after x and depends on it; x is skipped at once because its dependency outside the batch failed.
    const result = await scheduleSteps({
      steps: steps([
        { id: 'x', specialist: 's', objective: 'x', dependsOn: ['bad'] },
        { id: 'y', specialist: 's', objective: 'y', dependsOn: ['x'] },
        { id: 'z', specialist: 's', objective: 'z' },
      ]),
      prior: new Map([['bad', { stepId: 'bad', specialist: 's', status: 'failed', objective: '', error: 'e' }]]),
      concurrency: 2,
      defaultTimeoutMs: 1000,
      signal: new AbortController().signal,
      run: async (step) => ({ ok: true, output: step.id }),
    });
    expect(result.get('x')).toMatchObject({ status: 'skipped', error: 'skipped: dependency "bad" failed' });
    expect(result.get('y')).toMatchObject({ status: 'skipped', error: 'skipped: dependency "x" skipped' });
    expect(result.get('z')).toMatchObject({ status: 'succeeded', output: 'z' });
  }, 2000);
});
