import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { ms, ofType } from './helpers.ts';

let p: TestParley;
beforeAll(async () => {
  p = await createTestParley({ latencyMs: 100 });
});
afterAll(async () => {
  await p.close();
});

describe('scheduling over the scripted model (100 ms per call)', () => {
  it('runs 4 independent steps in parallel: all start before any finishes', async () => {
    const { result, events } = await p.run({ query: 'Write a report on data analysis [[steps:4]]', mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    const started = ofType(events, 'step.started');
    const finished = ofType(events, 'step.finished');
    expect(started).toHaveLength(4);
    expect(finished).toHaveLength(4);
    expect(Math.max(...started.map((e) => ms(e.at)))).toBeLessThan(Math.min(...finished.map((e) => ms(e.at))));
    // Each step's own model call overlaps the others at the server too.
    const stepCalls = p.scripted.requests.filter((r) => r.runId === result.runId && r.role === 'specialist');
    expect(stepCalls).toHaveLength(4);
    expect(Math.max(...stepCalls.map((c) => c.arrivedAt))).toBeLessThan(Math.min(...stepCalls.map((c) => c.finishedAt!)));
  });

  it('runs a dependency chain in order and substitutes {{prev.result}} from the dependency', async () => {
    const { result, events } = await p.run({ query: 'Write code then a report [[steps:3]] [[chain]]', mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    const plan = ofType(events, 'plan.ready')[0]!.plan;
    expect(plan.steps.map((s) => s.dependsOn)).toEqual([[], ['s1'], ['s2']]);
    const started = ofType(events, 'step.started');
    const finished = ofType(events, 'step.finished');
    const at = (list: { stepId: string; at: string }[], id: string) => ms(list.find((e) => e.stepId === id)!.at);
    expect(at(started, 's2')).toBeGreaterThanOrEqual(at(finished, 's1'));
    expect(at(started, 's3')).toBeGreaterThanOrEqual(at(finished, 's2'));
    expect(events.findIndex((e) => e.type === 'step.started' && e.stepId === 's2')).toBeGreaterThan(
      events.findIndex((e) => e.type === 'step.finished' && e.stepId === 's1'),
    );
    // s2's objective carries s1's output in place of {{s1.result}}.
    const s1Output = finished.find((e) => e.stepId === 's1')!.output!;
    const s2Objective = started.find((e) => e.stepId === 's2')!.objective;
    expect(plan.steps[1]!.objective).toContain('{{s1.result}}');
    expect(s2Objective).not.toContain('{{s1.result}}');
    expect(s2Objective).toContain(s1Output);
  });
});
