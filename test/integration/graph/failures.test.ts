import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { provenTeam } from '../../support/records.ts';

// Every model call of step "a" fails with HTTP 500 (the client makes no retries in tests). These
// tests follow the verifier's path: the immediate re-plan on a failure is off here
// (replan-on-failure.test.ts covers it).
const p = useTestParley({
  faults: [{ role: 'specialist', contains: '(step a)', fault: '500', times: 1000 }],
  config: { engine: { replanOnFailure: false } },
});

describe('a failed step', () => {
  it('skips its dependents, lets the independent branch finish, and the verifier sees it', async () => {
    const query = 'Summarise quarterly revenue figures for the board';
    await provenTeam(
      p.store,
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'a', specialist: 'writer', objective: 'Draft the summary' },
          { id: 'b', specialist: 'researcher', objective: 'Check the draft: {{a.result}}', dependsOn: ['a'] },
          { id: 'c', specialist: 'typescript-programmer', objective: 'Compute the revenue totals' },
        ],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'team_config' });
    const firstRound = ofType(events, 'step.finished').slice(0, 3);
    const status = Object.fromEntries(firstRound.map((e) => [e.stepId, e]));
    expect(status.a).toMatchObject({ status: 'failed' });
    expect(status.a!.error).toMatch(/500/);
    expect(status.b).toMatchObject({ status: 'skipped', error: 'skipped: dependency "a" failed' });
    expect(status.c).toMatchObject({ status: 'succeeded' });

    // The verifier was shown the failure and named the failed and skipped steps.
    const verifyCalls = callsOf(p.scripted.requests, result.runId, 'verification');
    expect(JSON.stringify(verifyCalls[0]!.body)).toMatch(
      /\\"id\\":\\"a\\",\\"specialist\\":\\"writer\\",\\"status\\":\\"failed\\"/,
    );
    const verdicts = ofType(events, 'verify.result');
    expect(verdicts[0]).toMatchObject({ round: 1, score: 0.5, next: 'retry_failed' });
    expect(verdicts[0]!.failedStepIds.sort()).toEqual(['a', 'b']);

    // Round 2 re-ran only a (and b behind it), never c; then the bound was reached.
    const secondRound = ofType(events, 'step.started')
      .filter((e) => e.attempt === 2)
      .map((e) => e.stepId);
    expect(secondRound).toEqual(['a']);
    expect(ofType(events, 'step.started').filter((e) => e.stepId === 'c')).toHaveLength(1);
    expect(verdicts.at(-1)).toMatchObject({ round: 2, next: 'exhausted' });
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^Note: verification did not pass: best score 0\.50 after 2 rounds/);
    expect(result.sources?.map((s) => s.stepId)).toContain('c');
    expect(result.answer).not.toContain('[a]');
  });
});

describe('the answer of a run with failed parts', () => {
  it('says which parts failed and why: the answer, run.finished and the result carry each failed or skipped step with its error beside the partial results', async () => {
    // The verifier passes round 1 (so no retry round): the answer is all the client gets.
    const query = 'Prepare the launch brief [[verify:0.9]]';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'a', specialist: 'writer', objective: 'Draft the brief' },
          { id: 'b', specialist: 'researcher', objective: 'Check the brief: {{a.result}}', dependsOn: ['a'] },
          { id: 'c', specialist: 'typescript-programmer', objective: 'Compute the launch dates' },
        ],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    expect(result.status).toBe('completed');
    expect(ofType(events, 'verify.result')).toEqual([expect.objectContaining({ round: 1, next: 'synthesize' })]);
    const failedA = ofType(events, 'step.finished').find((e) => e.stepId === 'a')!;
    expect(failedA.status).toBe('failed');
    const expected = [
      { stepId: 'a', specialist: 'writer', status: 'failed', error: failedA.error },
      { stepId: 'b', specialist: 'researcher', status: 'skipped', error: 'skipped: dependency "a" failed' },
    ];
    expect(failedA.error).toMatch(/500/);
    expect(result.failedSteps).toEqual(expected);
    const finished = ofType(events, 'run.finished')[0]!;
    expect(finished.failedSteps).toEqual(expected);

    // The answer keeps the partial result (step c) and says in plain words what each missing part was
    // to do and why it is missing: no step id, no specialist, no template (issue 43).
    expect(result.sources?.map((s) => s.stepId)).toContain('c');
    expect(result.answer).toContain(`- Draft the brief: failed (${failedA.error})`);
    expect(result.answer).toContain('- Check the brief: not done, because work it depended on failed');
    expect(result.answer).not.toMatch(/\ba \(writer\)|\bb \(researcher\)|\{\{/);
    // The synthesizer's model was told what failed, not only what succeeded.
    const synth = p.scripted.requests.find((r) => r.runId === result.runId && r.role === 'synthesizer')!;
    expect(JSON.stringify(synth.body)).toMatch(
      /\\"id\\":\\"a\\",\\"specialist\\":\\"writer\\",\\"status\\":\\"failed\\"/,
    );
  });

  it('a run whose steps all succeeded has no failedSteps', async () => {
    const query = 'Compute the launch dates for the release [[verify:0.9]]';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: [{ id: 'c', specialist: 'typescript-programmer', objective: 'Compute the dates' }],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    expect(result.failedSteps).toBeUndefined();
    expect(ofType(events, 'run.finished')[0]!.failedSteps).toBeUndefined();
    expect(result.answer).not.toMatch(/failed|skipped/);
  });
});
