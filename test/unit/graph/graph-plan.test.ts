import { describe, expect, it } from 'vitest';
import {
  GraphPlanSchema,
  normalizePhases,
  referencedSteps,
  substituteResults,
  validatePlan,
} from '../../../src/graph/planning/graph-plan.ts';

const known = new Set(['researcher', 'writer']);
const plan = (steps: unknown[]) => GraphPlanSchema.parse({ steps });

describe('validatePlan', () => {
  it('accepts a valid DAG', () => {
    const p = plan([
      { id: 'a', specialist: 'researcher', objective: 'find', phase: 'research' },
      { id: 'b', specialist: 'writer', objective: 'write from {{a.result}}', dependsOn: ['a'] },
    ]);
    expect(validatePlan(p, known)).toEqual([]);
  });

  it('names duplicate ids, unknown specialists and unknown dependencies', () => {
    const p = plan([
      { id: 'a', specialist: 'researcher', objective: 'x' },
      { id: 'a', specialist: 'ghost', objective: 'y', dependsOn: ['zzz'] },
    ]);
    const errors = validatePlan(p, known);
    expect(errors).toContain('step id "a" is used more than once');
    expect(errors).toContain('step "a" uses unknown specialist "ghost"');
    expect(errors).toContain('step "a" depends on unknown step "zzz"');
  });

  it('finds a cycle and prints its path', () => {
    const p = plan([
      { id: 'a', specialist: 'writer', objective: 'x', dependsOn: ['c'] },
      { id: 'b', specialist: 'writer', objective: 'y', dependsOn: ['a'] },
      { id: 'c', specialist: 'writer', objective: 'z', dependsOn: ['b'] },
    ]);
    expect(validatePlan(p, known).find((e) => e.startsWith('steps form a cycle'))).toMatch(/a -> c -> b -> a/);
  });

  it('rejects result references to steps that are not dependencies', () => {
    const p = plan([
      { id: 'a', specialist: 'writer', objective: 'x' },
      { id: 'b', specialist: 'researcher', objective: 'use {{a.result}}', phase: 'research', dependsOn: [] },
    ]);
    expect(validatePlan(p, known)).toEqual(['step "b" references {{a.result}} but does not depend on "a"']);
  });

  it('moves research steps that depend on execution steps into the execution phase', () => {
    const p = plan([
      { id: 'a', specialist: 'writer', objective: 'x' },
      { id: 'b', specialist: 'researcher', objective: 'y', phase: 'research', dependsOn: ['a'] },
      { id: 'c', specialist: 'researcher', objective: 'z', phase: 'research', dependsOn: ['b'] },
      { id: 'd', specialist: 'researcher', objective: 'w', phase: 'research' },
    ]);
    expect(normalizePhases(p).steps.map((s) => s.phase)).toEqual(['execution', 'execution', 'execution', 'research']);
  });
});

describe('result templating', () => {
  it('lists references and inlines each result delimited; one with no result never stays a placeholder', () => {
    expect(referencedSteps('x {{a.result}} {{ b.result }} {{a.result}}')).toEqual(['a', 'b']);
    expect(substituteResults('x {{a.result}} y {{b.result}}', new Map([['a', 'A!']]))).toBe(
      'x <parley:result step="a">A!</parley:result> y [no result from step "b"]',
    );
    const summarized = { stepId: 'a', text: 'short', summarized: { originalChars: 9000 } };
    expect(substituteResults('{{a.result}}', new Map([['a', summarized]]))).toBe(
      '<parley:result step="a" summarized="true" originalChars="9000">short</parley:result>',
    );
  });
});
