/** The fork form sends only what the user changed (console/src/timetravel/fork-edit.ts). */
import { describe, expect, it } from 'vitest';
import type { RunCheckpoint } from '../../../src/graph/timetravel/checkpoints.ts';
import { draftOf, editOf, freshStepId } from '../../../console/src/timetravel/fork-edit.ts';

const checkpoint: RunCheckpoint = {
  id: 'cp-9',
  seq: 9,
  at: '2026-11-26T18:00:00.000Z',
  kind: 'step',
  label: 'after step s1 (succeeded)',
  plan: {
    rationale: 'two steps',
    steps: [
      { id: 's1', specialist: 'writer', objective: 'Draft', dependsOn: [], phase: 'execution' },
      { id: 's2', specialist: 'editor', objective: 'Edit {{s1.result}}', dependsOn: ['s1'], phase: 'research' },
    ],
  },
  planRound: 1,
  steps: [{ stepId: 's1', specialist: 'writer', status: 'succeeded', output: 'draft text', objective: 'Draft' }],
  usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, costUsd: 0, modelCalls: 1, toolCalls: 0 },
};

describe('the fork edit', () => {
  it('is nothing when nothing changed', () => {
    expect(editOf(draftOf(checkpoint, 'the query'), checkpoint, 'the query')).toBeUndefined();
  });

  it('carries each changed field, the plan with its steps as planned plus the edits', () => {
    const draft = draftOf(checkpoint, 'the query');
    draft.query = 'another query';
    draft.steps[1]!.objective = 'Shorten {{s1.result}}';
    draft.steps.push({
      id: freshStepId(draft.steps),
      specialist: 'writer',
      objective: 'More',
      dependsOn: ['s2'],
      model: '',
    });
    draft.steps[0]!.model = 'gpt-4.1';
    draft.outputs.s1 = 'better draft';
    draft.models = { verifier: ' gpt-5-mini ', planner: '' };
    expect(editOf(draft, checkpoint, 'the query')).toEqual({
      query: 'another query',
      plan: {
        rationale: 'two steps',
        steps: [
          { id: 's1', specialist: 'writer', objective: 'Draft', dependsOn: [], phase: 'execution' },
          { id: 's2', specialist: 'editor', objective: 'Shorten {{s1.result}}', dependsOn: ['s1'], phase: 'research' },
          { id: 's3', specialist: 'writer', objective: 'More', dependsOn: ['s2'] },
        ],
      },
      outputs: { s1: 'better draft' },
      models: { verifier: 'gpt-5-mini' },
      stepModels: { s1: 'gpt-4.1' },
    });
  });

  it('names a new step with the first free s<n>', () => {
    const draft = draftOf(checkpoint, 'q');
    expect(freshStepId(draft.steps)).toBe('s3');
    draft.steps.push({ id: 's3', specialist: 'w', objective: 'o', dependsOn: [], model: '' });
    expect(freshStepId(draft.steps)).toBe('s4');
  });
});
