/**
 * Issue 14 §1: router stage 1 reuses a team, never another task. Each case teaches a caller of its
 * own a proven team with two real runs (teams are per caller), then asks a near miss through the
 * real engine and the scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

const TAUGHT = 'Port our billing service from Python to TypeScript';

let p: TestParley;
beforeAll(async () => {
  p = await createTestParley();
});
afterAll(async () => {
  await p.close();
});

let callers = 0;
/** A fresh caller that has run TAUGHT twice (both planned by the model, both verified). */
async function taughtCaller(): Promise<{ id: string }> {
  const caller = { id: `reuse-safety-${++callers}` };
  for (let i = 0; i < 2; i++) {
    const run = await p.run({ query: TAUGHT, caller, mode: 'orchestrate' });
    expect(run.result.status).toBe('completed');
  }
  return caller;
}

async function ask(query: string, caller: { id: string }) {
  const run = await p.run({ query, caller, mode: 'orchestrate' });
  const route = ofType(run.events, 'route.decided')[0]!;
  const objectives = ofType(run.events, 'step.started').map((e) => e.objective);
  return { run, route, objectives, plannerCalls: callsOf(p.scripted.requests, run.result.runId, 'graph_plan').length };
}

describe('router stage 1 reuses a team, never another task', () => {
  it('an exact repeat reuses the team with no planning call', async () => {
    const caller = await taughtCaller();
    const { route, plannerCalls, objectives } = await ask(TAUGHT, caller);
    expect(route.stage).toBe('team_config');
    expect(plannerCalls).toBe(0);
    expect(route.teamMatch).toMatchObject({ reused: true, similarity: 1 });
    expect(objectives.length).toBeGreaterThan(0);
    for (const o of objectives) expect(o).toContain(TAUGHT);
  });

  it('a paraphrase reuses the team, with objectives written from the new query, never copied from the old one', async () => {
    const caller = await taughtCaller();
    const paraphrase = 'Please, porting the billing service from python to typescript!';
    const { route, plannerCalls, objectives } = await ask(paraphrase, caller);
    expect(route.stage).toBe('team_config');
    expect(plannerCalls).toBe(0);
    expect(route.reason).toMatch(/same words in the same order/);
    expect(objectives.length).toBeGreaterThan(0);
    for (const o of objectives) {
      expect(o).toContain(paraphrase);
      expect(o).not.toContain(TAUGHT);
    }
  });

  // [what, query, why the closest team was refused — or null when the store offers no team at all
  // (the pattern is already below PARLEY_TEAM_MATCH_THRESHOLD)]
  const nearMisses: [string, string, RegExp | null][] = [
    ['the direction reversed', 'Port our billing service from TypeScript to Python', /another order/],
    ['a negation', 'Never port our billing service from Python to TypeScript', /negation differs \("never" added\)/],
    ["a negation (don't)", "Don't port our billing service from Python to TypeScript", null],
    [
      'a question instead of an instruction',
      'Should we port our billing service from Python to TypeScript?',
      /a question where the team was taught by an instruction/,
    ],
    ['another stack', 'Port our billing service from Python to Rust', null],
    ['another entity', 'Port our payroll service from Python to TypeScript', null],
  ];
  for (const [what, query, why] of nearMisses) {
    it(`${what} plans anew and runs objectives for the new query: "${query}"`, async () => {
      const caller = await taughtCaller();
      const { route, plannerCalls, objectives, run } = await ask(query, caller);
      expect(run.result.status).toBe('completed');
      expect(route.stage).not.toBe('team_config');
      expect(plannerCalls).toBe(1);
      expect(objectives.length).toBeGreaterThan(0);
      for (const o of objectives) {
        expect(o).toContain(query);
        expect(o).not.toContain(TAUGHT);
      }
      if (why === null) expect(route.teamMatch).toBeUndefined();
      else {
        // route.decided says why the closest team was not reused.
        expect(route.teamMatch).toMatchObject({ reused: false, why: expect.stringMatching(why) });
        expect(route.reason).toMatch(/not reused/);
      }
    });
  }

  it('route.decided names the team it refused, its similarity and the pattern, for the reversed direction', async () => {
    const caller = await taughtCaller();
    const { route } = await ask('Port our billing service from TypeScript to Python', caller);
    expect(route.teamMatch).toMatchObject({
      reused: false,
      similarity: 1,
      pattern: 'bill port python service typescript',
    });
    expect(route.teamMatch!.teamConfigId).toMatch(/^team:/);
    expect(route.reason).toMatch(/not reused/);
  });

  it('a near miss that succeeds shares the team (same words, same specialists) but does not take over its plan', async () => {
    const caller = await taughtCaller();
    const reversed = await ask('Port our billing service from TypeScript to Python', caller);
    expect(reversed.run.result.status).toBe('completed');
    const team = await p.store.findTeamConfig(TAUGHT, { callerId: caller.id });
    expect(team!.plan.taughtBy).toBe(TAUGHT);
    // So the taught query is still reused, and the reversed one still plans.
    expect((await ask(TAUGHT, caller)).route.stage).toBe('team_config');
    expect((await ask('Port our billing service from TypeScript to Python', caller)).route.stage).not.toBe(
      'team_config',
    );
  });
});

describe('PARLEY_TEAM_REUSE=false', () => {
  it('always plans, even an exact repeat of a proven query', async () => {
    const off = await createTestParley({ config: { knowledge: { teamReuse: false } } });
    try {
      for (let i = 0; i < 3; i++) {
        const run = await off.run({ query: TAUGHT, mode: 'orchestrate' });
        expect(run.result.status).toBe('completed');
        expect(ofType(run.events, 'route.decided')[0]!.stage).not.toBe('team_config');
        expect(callsOf(off.scripted.requests, run.result.runId, 'graph_plan')).toHaveLength(1);
      }
      // The team is still learnt (reuse is off, learning is not).
      expect(await off.store.findTeamConfig(TAUGHT)).toMatchObject({ uses: 3, successes: 3 });
    } finally {
      await off.close();
    }
  });
});
