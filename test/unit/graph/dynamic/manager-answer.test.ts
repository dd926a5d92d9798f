/**
 * When the root manager's finish result is the run's answer (no synthesizer call), one condition at a
 * time; test/integration/graph/dynamic.test.ts runs the same through the engine and the scripted model.
 */
import { describe, expect, it } from 'vitest';
import { managerAnswer, rootManagerOf, type ManagerAnswerInput } from '../../../../src/graph/dynamic/manager-answer.ts';
import type { GraphPlan, PlanStep } from '../../../../src/graph/planning/graph-plan.ts';
import type { StepOutcome } from '../../../../src/graph/run/step-outcome.ts';

const planned = (id: string, extra: Partial<PlanStep> = {}): PlanStep => ({
  id,
  specialist: 'manager',
  objective: 'Compare the vector databases',
  dependsOn: [],
  phase: 'execution',
  ...extra,
});
const spawnedBy = (parent: string, id: string, specialist: string): PlanStep =>
  planned(id, { specialist, objective: `part ${id}`, parentStepId: parent });
const succeeded = (s: PlanStep, output: string): StepOutcome => ({
  stepId: s.id,
  specialist: s.specialist,
  status: 'succeeded',
  objective: s.objective,
  output,
});

const ANSWER = 'Qdrant and Milvus are Apache-2.0; Weaviate is BSD-3.';
const manager = planned('manager', { manager: true });
const workers = [spawnedBy('manager', 'manager-1', 'researcher'), spawnedBy('manager', 'manager-2', 'database')];
const plan: GraphPlan = { rationale: '', steps: [manager, ...workers] };
const allSucceeded = new Map<string, StepOutcome>([
  ['manager', succeeded(manager, ANSWER)],
  ['manager-1', succeeded(workers[0]!, 'Qdrant, Milvus: Apache-2.0')],
  ['manager-2', succeeded(workers[1]!, 'Weaviate: BSD-3')],
]);
const passed = { round: 1, score: 0.9, feedback: '', failedStepIds: [] };
const base: ManagerAnswerInput = {
  plan,
  results: allSucceeded,
  verification: passed,
  finishedWith: (id) => (id === 'manager' ? ANSWER : undefined),
};

describe('the root manager', () => {
  it("is a plan's one planned step when it is a manager: a dynamic run's, or a hybrid plan of that one step", () => {
    expect(rootManagerOf(plan)).toBe('manager');
    expect(rootManagerOf({ rationale: '', steps: [planned('s1', { specialist: 'researcher', manager: true })] })).toBe(
      's1',
    );
  });

  it('is none in a hybrid plan with other planned steps, or a plan without a manager', () => {
    const hybrid: GraphPlan = {
      rationale: '',
      steps: [planned('s1', { manager: true }), planned('s2', { specialist: 'writer' }), spawnedBy('s1', 's1-1', 'qa')],
    };
    expect(rootManagerOf(hybrid)).toBeUndefined();
    expect(rootManagerOf({ rationale: '', steps: [planned('s1', { specialist: 'writer' })] })).toBeUndefined();
  });
});

describe('managerAnswer', () => {
  it('is the manager finish result, with every step as a source, when all succeeded and the verifier passed with nothing to add', () => {
    expect(managerAnswer(base)).toEqual({
      answer: ANSWER,
      sources: [
        { stepId: 'manager', specialist: 'manager' },
        { stepId: 'manager-1', specialist: 'researcher' },
        { stepId: 'manager-2', specialist: 'database' },
      ],
    });
  });

  it('is undefined (the synthesizer writes the answer) when an agent failed, was skipped or never ran', () => {
    const failed = new Map(allSucceeded).set('manager-2', {
      ...allSucceeded.get('manager-2')!,
      status: 'failed',
      output: '',
      error: 'HTTP 500',
    });
    expect(managerAnswer({ ...base, results: failed })).toBeUndefined();
    const missing = new Map(allSucceeded);
    missing.delete('manager-1');
    expect(managerAnswer({ ...base, results: missing })).toBeUndefined();
  });

  it('is undefined when the verifier passed with notes the answer must mention, did not pass, or was given up', () => {
    expect(managerAnswer({ ...base, verification: { ...passed, feedback: 'Say that Milvus changed licence.' } })).toBe(
      undefined,
    );
    expect(managerAnswer({ ...base, verification: { ...passed, feedback: '  \n' } })).toBeDefined();
    expect(managerAnswer({ ...base, verification: { ...passed, score: 0.5 } })).toBeUndefined();
    expect(managerAnswer({ ...base, exhausted: 'verification could not run (HTTP 500)' })).toBeUndefined();
    const { verification: _none, ...unverified } = base;
    expect(managerAnswer(unverified)).toBeUndefined();
  });

  it('is undefined when the manager did not finish with a result: empty, never called, or its turns ran out', () => {
    expect(managerAnswer({ ...base, finishedWith: () => '  ' })).toBeUndefined();
    expect(managerAnswer({ ...base, finishedWith: () => undefined })).toBeUndefined();
    const ranOut = new Map(allSucceeded).set(
      'manager',
      succeeded(manager, 'The tool loop stopped after 10 turns without a final answer.'),
    );
    expect(managerAnswer({ ...base, results: ranOut })).toBeUndefined();
  });

  it('is undefined in a hybrid run, whose manager step answers only its part', () => {
    const hybrid: GraphPlan = {
      rationale: '',
      steps: [planned('s1', { manager: true }), planned('s2', { specialist: 'writer' })],
    };
    const results = new Map([
      ['s1', succeeded(hybrid.steps[0]!, ANSWER)],
      ['s2', succeeded(hybrid.steps[1]!, 'the writeup')],
    ]);
    expect(managerAnswer({ ...base, plan: hybrid, results, finishedWith: () => ANSWER })).toBeUndefined();
  });
});
