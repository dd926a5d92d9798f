import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

const p = useTestParley();

describe('router stage 1: TeamConfig reuse', () => {
  it('plans the first run, then reuses the proven team for a near-identical query with no planning call', async () => {
    const first = await p.run({ query: 'Write a summary report of the software code review' });
    expect(first.result.status).toBe('completed');
    expect(ofType(first.events, 'route.decided')[0]!.stage).toMatch(/llm_plan|self_model/);
    expect(callsOf(p.scripted.requests, first.result.runId, 'graph_plan')).toHaveLength(1);
    const firstPlan = ofType(first.events, 'plan.ready')[0]!.plan;

    const second = await p.run({ query: 'Write the summary report of a software code review!' });
    expect(second.result.status).toBe('completed');
    const route = ofType(second.events, 'route.decided')[0]!;
    expect(route.stage).toBe('team_config');
    expect(route.teamConfigId).toMatch(/^team:/);
    expect(route.reason).toMatch(/^reused proven team/);
    // No routing and no planning call: stage 1 needs no model.
    expect(callsOf(p.scripted.requests, second.result.runId, 'graph_plan')).toHaveLength(0);
    expect(callsOf(p.scripted.requests, second.result.runId, 'route')).toHaveLength(0);
    expect(ofType(second.events, 'plan.ready')[0]!.plan.steps.map((s) => s.specialist)).toEqual(
      firstPlan.steps.map((s) => s.specialist),
    );

    // The reuse is recorded: the run points at the team and the team's use count grew.
    const stored = await p.store.getRun(second.result.runId);
    expect(stored!.teamConfigId).toBe(route.teamConfigId);
    const team = await p.store.findTeamConfig('Write a summary report of the software code review');
    expect(team).toMatchObject({ id: route.teamConfigId, uses: 2, successes: 2 });
  });

  it('a different query still plans', async () => {
    const other = await p.run({ query: 'Analyse the weather data trends for farming' });
    expect(ofType(other.events, 'route.decided')[0]!.stage).not.toBe('team_config');
    expect(callsOf(p.scripted.requests, other.result.runId, 'graph_plan')).toHaveLength(1);
  });
});
