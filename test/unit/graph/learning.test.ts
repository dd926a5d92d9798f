/** Team reuse's rules (graph/learning/): query shapes, the reuse judgement, and plan instantiation. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { instantiateObjective, instantiatePlan } from '../../../src/graph/learning/instantiate-plan.ts';
import { judgeTeam } from '../../../src/graph/learning/team-match.ts';
import { queryShape, shapeDifference } from '../../../src/knowledge/query-shape.ts';
import type { TeamConfig } from '../../../src/knowledge/store.ts';

const nearMisses = (
  JSON.parse(readFileSync(new URL('../../../bench/learning/near-misses.json', import.meta.url), 'utf8')) as {
    pairs: { kind: string; taught: string; asked: string }[];
  }
).pairs;

const differs = (a: string, b: string) => shapeDifference(queryShape(a), queryShape(b));

describe('query shapes', () => {
  it('the checked-in near-miss set has at least 30 pairs of every required kind, each judged a different task', () => {
    expect(nearMisses.length).toBeGreaterThanOrEqual(30);
    expect(new Set(nearMisses.map((p) => p.kind))).toEqual(
      new Set(['reversed', 'negation', 'question', 'entity', 'stack', 'reordered']),
    );
    for (const { taught, asked } of nearMisses) expect(differs(taught, asked), `${taught} -> ${asked}`).toBeDefined();
  });

  it('says which difference it found', () => {
    const taught = 'Port our billing service from Python to TypeScript';
    expect(differs(taught, 'Port our billing service from TypeScript to Python')).toMatch(/another order/);
    expect(differs(taught, 'Never port our billing service from Python to TypeScript')).toBe(
      'negation differs ("never" added)',
    );
    expect(differs("Don't port our billing service from Python to TypeScript", taught)).toBe(
      'negation differs ("not" dropped)',
    );
    expect(differs(taught, 'Should we port our billing service from Python to TypeScript?')).toBe(
      'a question where the team was taught by an instruction',
    );
    expect(differs(taught, 'Port our billing service from Python to Rust')).toBe(
      'words differ (+rust -typescript): another entity, language or stack',
    );
  });

  it('the same request retyped (case, punctuation, articles, possessives, please, inflection) is the same task', () => {
    const taught = 'Port our billing service from Python to TypeScript';
    for (const same of [
      'port the billing service from python to typescript.',
      'Please port our billing service from Python to TypeScript!',
      'Porting the billing service from Python to TypeScript',
      '  PORT OUR BILLING SERVICE FROM PYTHON TO TYPESCRIPT  ',
    ]) {
      expect(differs(taught, same), same).toBeUndefined();
    }
  });

  it('a question is a question whether it ends in "?" or opens with a question word', () => {
    expect(queryShape('Should we rewrite the scheduler in Rust').mood).toBe('question');
    expect(queryShape('Rewrite the scheduler in Rust?').mood).toBe('question');
    expect(queryShape('Please rewrite the scheduler in Rust').mood).toBe('instruction');
  });
});

describe('judging and instantiating a team', () => {
  const team = (taughtBy: string | undefined): TeamConfig => ({
    id: 'team:x',
    callerId: 'anonymous',
    pattern: 'bill port python service typescript',
    specialists: ['python-programmer', 'typescript-programmer'],
    uses: 2,
    successes: 2,
    avgScore: 0.9,
    plan: {
      rationale: 'r',
      ...(taughtBy === undefined ? {} : { taughtBy }),
      steps: [
        {
          id: 's1',
          specialist: 'python-programmer',
          objective: 'Port our billing service from Python to TypeScript (python-programmer)',
          dependsOn: [],
          phase: 'execution',
        },
        {
          id: 's2',
          specialist: 'typescript-programmer',
          objective: 'Check the TypeScript port of the billing service against {{s1.result}}',
          dependsOn: ['s1'],
          phase: 'execution',
        },
      ],
    },
  });

  it('a team that does not record the query that taught it is never reused', () => {
    expect(judgeTeam('Port our billing service from Python to TypeScript', team(undefined))).toMatchObject({
      reused: false,
      why: expect.stringMatching(/does not record/),
    });
  });

  it('reports similarity and pattern whether it reuses or not', () => {
    const t = team('Port our billing service from Python to TypeScript');
    expect(judgeTeam('port the billing service from python to typescript', t)).toEqual({
      teamConfigId: 'team:x',
      pattern: 'bill port python service typescript',
      similarity: 1,
      reused: true,
      why: 'same words in the same order, same mood and negation',
    });
    expect(judgeTeam('Port our billing service from TypeScript to Python', t)).toMatchObject({
      similarity: 1,
      reused: false,
    });
  });

  it("quotes the new query wherever an objective quoted the old one; the planner's own words and result references are kept", () => {
    const plan = instantiatePlan(
      team('Port our billing service from Python to TypeScript').plan,
      'Porting the billing service from python to typescript!',
    );
    expect(plan).not.toHaveProperty('taughtBy');
    expect(plan.steps.map((s) => s.objective)).toEqual([
      'Porting the billing service from python to typescript! (python-programmer)',
      'Check the TypeScript port of the billing service against {{s1.result}}',
    ]);
    // Quoted in another case, or without the closing punctuation, is still a quote.
    expect(
      instantiateObjective('Research: port from python (researcher)', 'Port from Python.', 'port from PYTHON'),
    ).toBe('Research: port from PYTHON (researcher)');
    expect(instantiateObjective('A $& B', 'a', 'x$&y')).toBe('x$&y $& B');
    expect(instantiateObjective('Deploy the deployment', 'deploy', 'Deploy!')).toBe('Deploy! the deployment');
  });
});
