/**
 * EngineDeps.presetPlan, the seam that hands the engine a plan (tests and embedders): the router takes
 * it before any team lookup or model call, checks it against the registry like any plan, and runs it.
 */
import { describe, expect, it } from 'vitest';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { provenTeam } from '../../support/records.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { useTestParley } from '../../support/use-test-parley.ts';

const p = useTestParley();

describe('a preset plan', () => {
  it('runs as given, ahead of a proven team for the same query: no routing or planning call, route.decided says where it came from', async () => {
    const query = 'Write the changelog and the upgrade guide';
    const plan = GraphPlanSchema.parse({
      rationale: 'given by the test',
      steps: [
        { id: 'log', specialist: 'writer', objective: 'Write the changelog' },
        {
          id: 'guide',
          specialist: 'writer',
          objective: 'Write the upgrade guide from {{log.result}}',
          dependsOn: ['log'],
        },
      ],
    });
    // A proven team for the same query with another plan: the preset plan comes first.
    await provenTeam(
      p.store,
      query,
      GraphPlanSchema.parse({ steps: [{ id: 'other', specialist: 'researcher', objective: 'Something else' }] }),
    );
    expect(await p.store.findTeamConfig(query)).toBeDefined();
    p.givePlan(query, plan);
    const { result, events } = await p.run({ query, mode: 'auto' });

    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')).toEqual([
      expect.objectContaining({ stage: 'preset_plan', candidates: ['writer'] }),
    ]);
    expect(ofType(events, 'plan.ready')[0]!.plan.steps.map((s) => [s.id, s.specialist, s.dependsOn])).toEqual([
      ['log', 'writer', []],
      ['guide', 'writer', ['log']],
    ]);
    expect(callsOf(p.scripted.requests, result.runId, 'route')).toHaveLength(0);
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(0);
    expect(ofType(events, 'step.finished').map((e) => [e.stepId, e.status])).toEqual([
      ['log', 'succeeded'],
      ['guide', 'succeeded'],
    ]);
  });

  it('is checked against the registry: one naming an unknown specialist fails the run with the reason and calls no model', async () => {
    const query = 'Hunt the ghosts in the build';
    p.givePlan(query, GraphPlanSchema.parse({ steps: [{ id: 'g', specialist: 'ghost-hunter', objective: 'Hunt' }] }));
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    expect(result.status).toBe('failed');
    expect(result.error).toBe('the preset plan is invalid: step "g" uses unknown specialist "ghost-hunter"');
    expect(ofType(events, 'step.started')).toHaveLength(0);
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(0);
  });

  it('only for the queries it names: any other query is routed and planned as usual', async () => {
    const { result, events } = await p.run({ query: 'Write a short note on tides [[steps:1]]', mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]!.stage).not.toBe('preset_plan');
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(1);
  });
});
