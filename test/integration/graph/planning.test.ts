import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { createEngineContext } from '../../../src/graph/run/engine-context.ts';
import { createRunState } from '../../../src/graph/run/state.ts';
import { RunEventLog } from '../../../src/graph/run/event-log.ts';
import { loadSpecialists, planWithModel } from '../../../src/graph/planning/plan-with-model.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { provenTeam } from '../../support/records.ts';

const p = useTestParley();

describe('plan validation', () => {
  it('sends an invalid plan (unknown specialist) back once with its errors, then fails clearly', async () => {
    const ctx = createEngineContext(p.deps);
    const id = 'plan-validation-run';
    const query = 'ghost hunting tips for old castles';
    const run = createRunState(
      {
        id,
        threadId: id,
        request: { query, protocol: 'test' },
        startedAt: Date.now(),
        log: new RunEventLog(id, { buffer: 100 }),
      },
      ctx,
    );
    await loadSpecialists(run, ctx);
    // The planner is shown a candidate the registry does not know (as if it vanished after retrieval).
    const ghost = {
      ...(await p.store.getSpecialist('writer'))!,
      id: 'ghost-hunter',
      description: 'ghost hunting in old castles',
      domains: ['ghost'],
    };
    run.candidates = [{ specialist: ghost, relevance: 1, score: 1 }];

    const attempt = await planWithModel(run, ctx);
    expect(attempt).toEqual({ ok: false, errors: ['step "s1" uses unknown specialist "ghost-hunter"'] });
    const plans = callsOf(p.scripted.requests, id, 'graph_plan');
    expect(plans).toHaveLength(2);
    expect(JSON.stringify(plans[1]!.body)).toContain(
      'The previous plan was invalid:\\n- step \\"s1\\" uses unknown specialist \\"ghost-hunter\\"',
    );
  });

  it('does not reuse a proven team whose plan is no longer valid (a cycle), and plans instead', async () => {
    const query = 'Write documentation for the payments code';
    await provenTeam(
      p.store,
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'x', specialist: 'writer', objective: 'a', dependsOn: ['y'] },
          { id: 'y', specialist: 'typescript-programmer', objective: 'b', dependsOn: ['x'] },
        ],
      }),
    );
    expect(await p.store.findTeamConfig(query)).toBeDefined();
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(ofType(events, 'route.decided')[0]!.stage).not.toBe('team_config');
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(1);
    expect(result.status).toBe('completed');
  });
});
