/**
 * Issue 14 §1, third bullet: what execution memory learns from. A step skipped because its
 * dependency failed is not its specialist's failure; a cancelled or blocked run teaches nothing,
 * even when a verifier round had already scored it. Through the real engine and scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';
import type { GraphPlan } from '../../../src/graph/planning/graph-plan.ts';
import { ofType } from '../../support/run-events.ts';
import { provenTeam } from '../../support/records.ts';

let p: TestParley;
beforeAll(async () => {
  // The verifier's path (a failed step is retried in the next verifier round, within one plan):
  // the immediate re-plan on a failure (replan-on-failure.test.ts) would replace the plan recorded.
  p = await createTestParley({ config: { engine: { replanOnFailure: false } } });
});
afterAll(async () => {
  await p.close();
});

const runsOf = async (specialist: string) => (await p.store.getProficiency(specialist, 'specialist'))?.runs ?? 0;

describe('what a run teaches', () => {
  it('a step skipped because its dependency failed does not count against its specialist', async () => {
    const query = 'Gather the release facts then write the release notes';
    const plan: GraphPlan = {
      rationale: 'seeded',
      steps: [
        {
          id: 'facts',
          specialist: 'researcher',
          objective: 'Gather the release facts FAILS-HERE',
          dependsOn: [],
          phase: 'research',
        },
        {
          id: 'notes',
          specialist: 'writer',
          objective: 'Write release notes from {{facts.result}}',
          dependsOn: ['facts'],
          phase: 'execution',
        },
        // An independent step that succeeds: the verifier retries the failed step instead of re-planning.
        {
          id: 'risks',
          specialist: 'architect',
          objective: 'List the release risks',
          dependsOn: [],
          phase: 'execution',
        },
      ],
    };
    await provenTeam(p.store, query, plan);
    const [researcherBefore, writerBefore] = [await runsOf('researcher'), await runsOf('writer')];
    p.scripted.setFaults([{ role: 'specialist', contains: 'FAILS-HERE', fault: '500', times: 1000 }]);
    try {
      const { result, events } = await p.run({ query, mode: 'orchestrate' });
      expect(ofType(events, 'route.decided')[0]!.stage).toBe('team_config');
      const finished = ofType(events, 'step.finished');
      expect(finished.some((e) => e.stepId === 'facts' && e.status === 'failed')).toBe(true);
      const stored = await p.store.getRun(result.runId);
      expect(stored!.score).not.toBeNull();
      expect(stored!.steps.find((s) => s.id === 'notes')!.status).toBe('skipped');
    } finally {
      p.scripted.setFaults([]);
    }
    // The researcher failed: that is learnt. The writer never ran: nothing is learnt about it.
    expect(await runsOf('researcher')).toBe(researcherBefore + 1);
    expect((await p.store.getProficiency('researcher', 'specialist'))!.successes).toBe(1); // the seed's
    expect(await runsOf('writer')).toBe(writerBefore);
  });

  it('a run blocked by its budget after verification teaches nothing (no team use, no proficiency)', async () => {
    const query = 'Summarise the changelog for the quarterly report';
    await provenTeam(p.store, query, {
      rationale: 'seeded',
      steps: [{ id: 's1', specialist: 'writer', objective: query, dependsOn: [], phase: 'execution' }],
    });
    const teamBefore = await p.store.findTeamConfig(query);
    expect(teamBefore).toMatchObject({ uses: 1 });
    const writerBefore = await runsOf('writer');
    // One step call and the verification fit; the synthesis does not.
    const { result, events } = await p.run({ query, mode: 'orchestrate', budget: { modelCalls: 2 } });
    expect(result.status).toBe('blocked');
    expect(ofType(events, 'verify.result')).toHaveLength(1);
    expect((await p.store.getRun(result.runId))!.score).not.toBeNull();
    expect((await p.store.findTeamConfig(query))!.uses).toBe(1);
    expect(await runsOf('writer')).toBe(writerBefore);
  });

  it('a run cancelled after verification teaches nothing', async () => {
    const query = 'Write the onboarding guide for new reviewers [[latency:300]]';
    await provenTeam(p.store, query, {
      rationale: 'seeded',
      steps: [{ id: 's1', specialist: 'writer', objective: query, dependsOn: [], phase: 'execution' }],
    });
    const writerBefore = await runsOf('writer');
    const handle = p.engine.start({ query, mode: 'orchestrate', protocol: 'test' });
    const events: GraphEvent[] = [];
    for await (const e of handle.events()) {
      events.push(e);
      // Once the synthesis has started: the verification is then part of the run (a cancel on verify.result
      // itself races the verifier's update, which the walk drops when the abort wins).
      if (e.type === 'node.started' && e.node === 'synthesizer')
        p.engine.cancel(handle.id, 'test cancels during the synthesis');
    }
    const result = await handle.result;
    expect(result.status).toBe('cancelled');
    expect((await p.store.getRun(result.runId))!.score).not.toBeNull();
    expect((await p.store.findTeamConfig(query))!.uses).toBe(1);
    expect(await runsOf('writer')).toBe(writerBefore);
  });
});
