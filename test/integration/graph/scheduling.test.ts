import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { ms, ofType } from '../../support/run-events.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';

const p = useTestParley({ latencyMs: 100 });

describe('scheduling over the scripted model (100 ms per call)', () => {
  it('runs 4 independent steps in parallel: all start before any finishes', async () => {
    // Exactly this plan: four independent execution steps.
    const query = 'Prepare the release: docs, code, tests and deployment';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: ['writer', 'typescript-programmer', 'qa', 'devops'].map((specialist, i) => ({
          id: `p${i + 1}`,
          specialist,
          objective: `Part ${i + 1} of the release`,
        })),
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    const started = ofType(events, 'step.started');
    const finished = ofType(events, 'step.finished');
    expect(started).toHaveLength(4);
    expect(finished).toHaveLength(4);
    expect(Math.max(...started.map((e) => ms(e.at)))).toBeLessThan(Math.min(...finished.map((e) => ms(e.at))));
    // Each step's own model call overlaps the others at the server too.
    const stepCalls = p.scripted.requests.filter((r) => r.runId === result.runId && r.role === 'specialist');
    expect(stepCalls).toHaveLength(4);
    expect(Math.max(...stepCalls.map((c) => c.arrivedAt))).toBeLessThan(
      Math.min(...stepCalls.map((c) => c.finishedAt!)),
    );
  });

  it('runs a dependency chain in order and substitutes {{prev.result}} from the dependency', async () => {
    const { result, events } = await p.run({
      query: 'Write code then a report [[steps:3]] [[chain]]',
      mode: 'orchestrate',
    });
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

describe('phases', () => {
  it('runs research steps before execution steps, even independent ones (a barrier per phase)', async () => {
    const query = 'Investigate the outage and write the postmortem';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'r1', specialist: 'researcher', objective: 'Collect the outage timeline', phase: 'research' },
          { id: 'r2', specialist: 'researcher', objective: 'Collect the metrics', phase: 'research' },
          { id: 'w', specialist: 'writer', objective: 'Write the postmortem outline', phase: 'execution' },
        ],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'node.started').map((e) => e.node)).toEqual([
      'usage_guard',
      'router',
      'dispatcher',
      'memory',
      'dispatcher',
      'research_joiner',
      'dispatcher',
      'execution_joiner',
      'dispatcher',
      'verifier',
      'synthesizer',
    ]);
    const idx = (type: string, id: string) =>
      events.findIndex((e) => e.type === type && 'stepId' in e && e.stepId === id);
    expect(idx('step.started', 'w')).toBeGreaterThan(idx('step.finished', 'r1'));
    expect(idx('step.started', 'w')).toBeGreaterThan(idx('step.finished', 'r2'));
  });
});
