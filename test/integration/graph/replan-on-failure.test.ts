import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { GraphPlanSchema, type GraphPlan } from '../../../src/graph/planning/graph-plan.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import type { GraphEvent } from '../../../src/graph/run/events.ts';

// A failed step whose dependents cannot run sends the run back to the planner at once
// (PARLEY_REPLAN_ON_FAILURE, on by default), not to the verifier.

/** a (writer) fails, b depends on a, c is an independent sibling that succeeds. */
const failingPlan = (): GraphPlan =>
  GraphPlanSchema.parse({
    steps: [
      { id: 'a', specialist: 'writer', objective: 'Draft the summary' },
      { id: 'b', specialist: 'researcher', objective: 'Check the draft: {{a.result}}', dependsOn: ['a'] },
      { id: 'c', specialist: 'typescript-programmer', objective: 'Compute the revenue totals' },
    ],
  });

const stepCalls = (requests: { runId?: string; role?: string; body?: unknown }[], runId: string, stepId: string) =>
  requests.filter(
    (r) => r.runId === runId && r.role === 'specialist' && JSON.stringify(r.body).includes(`(step ${stepId})`),
  );

const indexOf = (events: GraphEvent[], match: (e: GraphEvent) => boolean) => events.findIndex(match);

describe('a failed step with dependents', () => {
  // Every model call of step "a" fails with HTTP 500 (the client makes no retries in tests).
  const p = useTestParley({ faults: [{ role: 'specialist', contains: '(step a)', fault: '500', times: 1000 }] });

  it('re-plans at once: the new plan replaces the failed step and its dependent, the succeeded sibling is kept and not re-run, the planner is told what failed and why', async () => {
    const query = 'Summarise quarterly revenue figures for the board';
    p.givePlan(query, failingPlan());
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    const first = ofType(events, 'step.finished').slice(0, 3);
    expect(Object.fromEntries(first.map((e) => [e.stepId, e.status]))).toEqual({
      a: 'failed',
      b: 'skipped',
      c: 'succeeded',
    });

    // The re-plan came straight after the failure, before any verification.
    const plans = ofType(events, 'plan.ready');
    expect(plans).toHaveLength(2);
    expect(plans[1]).toMatchObject({ round: 2, cause: 'step_failed', failedStepIds: ['a'] });
    expect(plans[0]!.cause).toBeUndefined();
    const replanAt = indexOf(events, (e) => e.type === 'plan.ready' && e.round === 2);
    const firstVerify = indexOf(events, (e) => e.type === 'verify.result');
    expect(replanAt).toBeGreaterThan(0);
    expect(firstVerify).toBeGreaterThan(replanAt);
    expect(ofType(events, 'node.finished').find((e) => e.node === 'dispatcher' && e.next === 'planner')).toBeDefined();

    // The new plan: no a, no b; c carried over as it was; new steps from the planner.
    const second = plans[1]!.plan.steps;
    const ids = second.map((s) => s.id);
    expect(ids).not.toContain('a');
    expect(ids).not.toContain('b');
    expect(second.find((s) => s.id === 'c')).toMatchObject({
      specialist: 'typescript-programmer',
      objective: 'Compute the revenue totals',
    });
    const fresh = second.filter((s) => s.id !== 'c');
    expect(fresh.length).toBeGreaterThan(0);
    for (const s of fresh) {
      expect(ofType(events, 'step.finished').find((e) => e.stepId === s.id)).toMatchObject({ status: 'succeeded' });
    }

    // c ran once: one step.started, one model call with its objective.
    expect(ofType(events, 'step.started').filter((e) => e.stepId === 'c')).toHaveLength(1);
    expect(stepCalls(p.scripted.requests, result.runId, 'c')).toHaveLength(1);
    // Calls of the run: a (failed), c, the new steps, one planner call, one verifier, one synthesizer.
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(1);
    expect(callsOf(p.scripted.requests, result.runId, 'verification')).toHaveLength(1);
    const chat = p.scripted.requests.filter((r) => r.runId === result.runId && r.endpoint === 'chat.completions');
    expect(chat).toHaveLength(2 + fresh.length + 3);

    // The planner's request says which step failed, why, what it blocked, and what is kept.
    const plannerBody = JSON.stringify(callsOf(p.scripted.requests, result.runId, 'graph_plan')[0]!.body);
    const failedA = first.find((e) => e.stepId === 'a')!;
    expect(failedA.error).toMatch(/500/);
    expect(plannerBody).toContain(`step a (writer) failed: ${failedA.error}; it blocked b`);
    expect(plannerBody).toContain('Finished steps c are kept with their results');
    expect(plannerBody).toContain('typescript-programmer, objective \\"Compute the revenue totals\\"');

    // The verifier and the answer see c's first (and only) result and the new steps; nothing is missing.
    const verdicts = ofType(events, 'verify.result');
    expect(verdicts).toEqual([expect.objectContaining({ round: 1, next: 'synthesize' })]);
    expect(result.status).toBe('completed');
    expect(result.failedSteps).toBeUndefined();
    expect(result.sources?.map((s) => s.stepId)).toContain('c');
    const cOutput = first.find((e) => e.stepId === 'c')!.output!;
    expect(cOutput).toContain('Your objective: Compute the revenue totals');
    const synth = p.scripted.requests.find((r) => r.runId === result.runId && r.role === 'synthesizer')!;
    expect(JSON.stringify(synth.body)).toContain('Your objective: Compute the revenue totals');
  });

  it('a failed step that nothing depends on does not re-plan: the verifier judges the round', async () => {
    const query = 'Compute revenue and draft the notes [[verify:0.9]]';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'a', specialist: 'writer', objective: 'Draft the notes' },
          { id: 'c', specialist: 'typescript-programmer', objective: 'Compute the revenue' },
        ],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(ofType(events, 'plan.ready')).toHaveLength(1);
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(0);
    expect(ofType(events, 'verify.result')).toEqual([expect.objectContaining({ round: 1, next: 'synthesize' })]);
    expect(result.failedSteps).toEqual([expect.objectContaining({ stepId: 'a', status: 'failed' })]);
  });
});

describe('a step that keeps failing', () => {
  // Step a and every step the planner makes (s1, s2, …) fail; c succeeds.
  const p = useTestParley({
    faults: [
      { role: 'specialist', contains: '(step a)', fault: '500', times: 1000 },
      { role: 'specialist', contains: '(step s', fault: '500', times: 1000 },
    ],
  });

  it('re-plans at once at most up to the round bound, then ends with the failed steps named in the answer (no loop)', async () => {
    const query = 'Summarise quarterly revenue figures for the board [[chain]] [[steps:2]]';
    p.givePlan(query, failingPlan());
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    // PARLEY_MAX_VERIFY_ROUNDS (2) plans at most through failure: the first plan and one re-plan.
    const plans = ofType(events, 'plan.ready');
    expect(plans.map((e) => [e.round, e.cause])).toEqual([
      [1, undefined],
      [2, 'step_failed'],
    ]);
    expect(plans[1]!.plan.steps.map((s) => s.id)).toEqual(['c', 's1', 's2']);
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(1);
    // Then the verifier's rounds (retry, then exhausted) end it.
    expect(ofType(events, 'verify.result').map((e) => e.next)).toEqual(['retry_failed', 'exhausted']);
    expect(stepCalls(p.scripted.requests, result.runId, 'c')).toHaveLength(1);

    expect(result.status).toBe('completed');
    expect(result.failedSteps).toEqual([
      expect.objectContaining({ stepId: 's1', status: 'failed', error: expect.stringMatching(/500/) }),
      {
        stepId: 's2',
        specialist: plans[1]!.plan.steps[2]!.specialist,
        status: 'skipped',
        error: 'skipped: dependency "s1" failed',
      },
    ]);
    expect(result.sources?.map((s) => s.stepId)).toContain('c');
    expect(result.answer).toContain('Not done (this answer is partial):');
    // In plain words: each missing part's objective and why, never its step id (issue 43).
    const objectiveOf = (id: string) => plans[1]!.plan.steps.find((s) => s.id === id)!.objective;
    expect(result.answer).toContain(`- ${objectiveOf('s1')}: failed (`);
    expect(result.answer).toMatch(/: failed \(.*500/);
    expect(result.answer).toContain('not done, because work it depended on failed');
    expect(result.answer).not.toMatch(/- s[12] \(/);
  });
});

describe('a step that keeps failing, with PARLEY_MAX_VERIFY_ROUNDS=3', () => {
  const p = useTestParley({
    faults: [
      { role: 'specialist', contains: '(step a)', fault: '500', times: 1000 },
      { role: 'specialist', contains: '(step s', fault: '500', times: 1000 },
    ],
    config: { engine: { maxVerifyRounds: 3 } },
  });

  it('re-plans on failure twice (three plans), then the verifier rounds end the run', async () => {
    const query = 'Summarise quarterly revenue figures for the board [[chain]] [[steps:2]]';
    p.givePlan(query, failingPlan());
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(ofType(events, 'plan.ready').map((e) => [e.round, e.cause])).toEqual([
      [1, undefined],
      [2, 'step_failed'],
      [3, 'step_failed'],
    ]);
    expect(ofType(events, 'verify.result').map((e) => e.next)).toEqual(['retry_failed', 'retry_failed', 'exhausted']);
    expect(stepCalls(p.scripted.requests, result.runId, 'c')).toHaveLength(1);
    expect(result.status).toBe('completed');
    expect(result.failedSteps?.map((f) => [f.stepId, f.status])).toEqual([
      ['s1', 'failed'],
      ['s2', 'skipped'],
    ]);
  });
});

describe('a failure re-plan whose planner model fails', () => {
  const p = useTestParley({
    faults: [
      { role: 'specialist', contains: '(step a)', fault: '500', times: 1000 },
      { role: 'planner', fault: '500', times: 1000 },
    ],
  });

  it('falls back to the verifier: the round is judged and answered with its partial result', async () => {
    const query = 'Summarise quarterly revenue figures for the board [[verify:0.9]]';
    p.givePlan(query, failingPlan());
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan').length).toBeGreaterThan(0);
    expect(ofType(events, 'plan.ready')).toHaveLength(1);
    expect(ofType(events, 'node.finished').find((e) => e.node === 'planner')).toMatchObject({ next: 'verifier' });
    expect(ofType(events, 'verify.result')).toEqual([expect.objectContaining({ round: 1, next: 'synthesize' })]);
    expect(result.status).toBe('completed');
    expect(result.sources?.map((s) => s.stepId)).toContain('c');
    expect(result.failedSteps?.map((f) => [f.stepId, f.status])).toEqual([
      ['a', 'failed'],
      ['b', 'skipped'],
    ]);
  });
});
