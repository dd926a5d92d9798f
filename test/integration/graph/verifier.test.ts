import { describe, expect, it } from 'vitest';
import { createTestParley } from '../../support/engine.ts';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

const p = useTestParley({ config: { engine: { maxVerifyRounds: 3 } } });

// Distinct topics per test, so no test reuses a team an earlier one proved (stage 1).
const run = (topic: string, directive: string) =>
  p.run({ query: `Write a report on ${topic} [[steps:2]] ${directive}`, mode: 'orchestrate' });

describe('verifier bands', () => {
  it('≥ 0.7 synthesizes at once', async () => {
    const { result, events } = await run('coffee prices', '[[verify:0.8]]');
    expect(ofType(events, 'verify.result').map((e) => e.next)).toEqual(['synthesize']);
    expect(result.status).toBe('completed');
    expect(result.answer).not.toMatch(/verification did not pass/);
  });

  it('0.4–0.7 re-runs the failed steps with the feedback, then synthesizes', async () => {
    const { result, events } = await run('tide tables', '[[verify:0.5,0.9]]');
    const verdicts = ofType(events, 'verify.result');
    expect(verdicts.map((e) => [e.round, e.score, e.next])).toEqual([
      [1, 0.5, 'retry_failed'],
      [2, 0.9, 'synthesize'],
    ]);
    const retried = ofType(events, 'step.started').filter((e) => e.attempt === 2);
    expect(retried.map((e) => e.stepId).sort()).toEqual(verdicts[0]!.failedStepIds.sort());
    for (const s of retried)
      expect(s.objective).toContain(`Feedback from verification of the previous attempt: ${verdicts[0]!.feedback}`);
    expect(callsOf(p.scripted.requests, result.runId, 'graph_plan')).toHaveLength(1);
    expect(result.status).toBe('completed');
  });

  it('< 0.4 re-plans with what was learned, then synthesizes', async () => {
    const { result, events } = await run('glacier melt', '[[verify:0.2,0.9]]');
    expect(ofType(events, 'verify.result').map((e) => e.next)).toEqual(['replan', 'synthesize']);
    expect(ofType(events, 'plan.ready').map((e) => e.round)).toEqual([1, 2]);
    expect(ofType(events, 'node.started').map((e) => e.node)).toContain('planner');
    const plans = callsOf(p.scripted.requests, result.runId, 'graph_plan');
    expect(plans).toHaveLength(2);
    expect(JSON.stringify(plans[1]!.body)).toContain('Verifier score 0.2');
    expect(result.status).toBe('completed');
  });

  it('stops at maxVerifyRounds and synthesizes the best result, saying verification did not pass', async () => {
    const { result, events } = await run('violin making', '[[verify:0.5,0.6,0.45]]');
    const verdicts = ofType(events, 'verify.result');
    expect(verdicts.map((e) => e.next)).toEqual(['retry_failed', 'retry_failed', 'exhausted']);
    expect(callsOf(p.scripted.requests, result.runId, 'verification')).toHaveLength(3);
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^Note: verification did not pass: best score 0\.60 after 3 rounds/);
    expect((await p.store.getRun(result.runId))!.score).toBe(0.6);
  });
});

describe('a verifier that cannot answer', () => {
  it('costs only the verification: the run answers unverified and says so', async () => {
    const q = await createTestParley({ faults: [{ role: 'verifier', fault: '500', times: 10 }] });
    try {
      const { result, events } = await q.run({
        query: 'Write a report on kelp forests [[steps:1]]',
        mode: 'orchestrate',
      });
      expect(result.status).toBe('completed');
      expect(ofType(events, 'verify.result')).toHaveLength(0);
      expect(result.answer).toMatch(/^Note: verification could not run \(.*\)\. This is the best result\./);
      expect((await q.store.getRun(result.runId))!.score).toBeNull();
    } finally {
      await q.close();
    }
  });
});

describe('a re-planned round', () => {
  it('keeps the steps that succeeded: never re-run, their results in the next round and in the answer; the planner sees them', async () => {
    // Step s2's first model call fails; the verifier then scores 0.2, so the planner re-plans.
    p.scripted.setFaults([{ role: 'specialist', contains: 'Your objective (step s2)', fault: '500', times: 1 }]);
    try {
      const { result, events } = await run('lighthouse keepers', '[[verify:0.2,0.9]]');
      expect(ofType(events, 'verify.result').map((e) => e.next)).toEqual(['replan', 'synthesize']);
      const firstS1 = ofType(events, 'step.finished').find((e) => e.stepId === 's1')!;
      expect(firstS1.status).toBe('succeeded');
      expect(ofType(events, 'step.finished').find((e) => e.stepId === 's2')!.status).toBe('failed');

      // The re-plan kept s1: it ran once in all; only s2 ran again.
      expect(ofType(events, 'plan.ready').map((e) => e.round)).toEqual([1, 2]);
      expect(ofType(events, 'step.started').map((e) => e.stepId)).toEqual(['s1', 's2', 's2']);
      const specialistCalls = p.scripted.requests.filter((r) => r.runId === result.runId && r.role === 'specialist');
      expect(specialistCalls.filter((r) => r.lastUserMessage.includes('(step s1)'))).toHaveLength(1);

      // The planner was told what failed and which results are in hand.
      const plans = callsOf(p.scripted.requests, result.runId, 'graph_plan');
      expect(JSON.stringify(plans[1]!.body)).toContain('Results already in hand');
      // The round-2 verification and the answer both use s1's round-1 output.
      const verifyCalls = callsOf(p.scripted.requests, result.runId, 'verification');
      expect(verifyCalls[1]!.lastUserMessage).toContain(JSON.stringify(firstS1.output).slice(1, -1));
      const synth = p.scripted.requests.find((r) => r.runId === result.runId && r.role === 'synthesizer')!;
      expect(synth.lastUserMessage).toContain(JSON.stringify(firstS1.output).slice(1, -1));
      expect(result.status).toBe('completed');
      expect(result.answer).not.toContain('Steps used');
      expect(result.sources?.map((s) => s.stepId)).toEqual(['s1', 's2']);
      expect(result.failedSteps).toBeUndefined();
    } finally {
      p.scripted.setFaults([]);
    }
  });
});
