import { describe, expect, it } from 'vitest';
import { createTestParley } from '../../support/engine.ts';
import { useTestParley } from '../../support/use-test-parley.ts';
import { CouncilVerdictSchema } from '../../../src/graph/prompting/schemas.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { createPriceCatalog } from '../../../src/llm/prices.ts';
import { Engine } from '../../../src/graph/engine.ts';

const p = useTestParley();

/** The labelled answers of a council request, in the order the request shows them. */
const answersOf = (text: string): Record<string, string> =>
  JSON.parse(/<parley:answers>([\s\S]*?)<\/parley:answers>/.exec(text)![1]!) as Record<string, string>;

describe('council', () => {
  it('mode council: 5 advisors, answers blind behind A–E, 3 reviews, a typed verdict stored as a Decision', async () => {
    const question = 'Should we rewrite the billing service in Rust?';
    const { result, events } = await p.run({ query: question, mode: 'council' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'council.stage').map((e) => e.stage)).toEqual(['advisors', 'reviews', 'verdict']);
    const calls = callsOf(p.scripted.requests, result.runId);
    const advisors = calls.filter((c) => c.role === 'council_advisor');
    expect(advisors).toHaveLength(5);
    // Each advisor got its own thinking style.
    const styles = advisors.map((c) => JSON.stringify(c.body).match(/You are the ([A-Za-z-]+)[. ]/)?.[1]);
    expect(new Set(styles)).toEqual(
      new Set(['Contrarian', 'First-Principles', 'Expansionist', 'Outsider', 'Executor']),
    );
    // Reviewers saw labels A–E, not advisor names.
    const reviews = calls.filter((c) => c.schemaName === 'council_review');
    expect(reviews).toHaveLength(3);
    for (const r of reviews) {
      const body = JSON.stringify(r.body);
      expect(body).not.toMatch(/Contrarian|Expansionist/);
    }
    // Each reviewer saw all five labelled answers in its own order (position bias spread out), as recorded in the event.
    const seen = reviews.map((r) => Object.keys(answersOf(r.lastUserMessage)));
    for (const labels of seen) expect([...labels].sort()).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(new Set(seen.map((l) => l.join(''))).size).toBe(3);
    for (let pos = 0; pos < 5; pos++) expect(new Set(seen.map((l) => l[pos])).size).toBe(3);
    const reviewStage = ofType(events, 'council.stage').find((e) => e.stage === 'reviews')!;
    expect(reviewStage.orders).toEqual(seen);
    // Each label is the same answer for every reviewer and for the chairman.
    const chairman = calls.find((c) => c.schemaName === 'council_verdict')!;
    const chairAnswers = answersOf(chairman.lastUserMessage);
    for (const r of reviews) expect(answersOf(r.lastUserMessage)).toEqual(chairAnswers);
    // The reviews reach the chairman in a delimited block; its prompt keeps the labels internal.
    expect(chairman.lastUserMessage).toMatch(/<parley:reviews>\[\{"reviewer":1,"ranking":\[/);
    expect(JSON.stringify(chairman.body)).toMatch(/labels A to E and the reviewer numbers are internal/);
    expect(calls.filter((c) => c.schemaName === 'council_verdict')).toHaveLength(1);

    const verdict = ofType(events, 'council.stage').at(-1)!.verdict!;
    expect(CouncilVerdictSchema.parse(verdict)).toEqual(verdict);
    expect(result.answer).toContain(`Recommendation: ${verdict.recommendation}`);
    // The verdict streams in sections that add up to the answer, and names no label.
    const deltas = ofType(events, 'answer.delta').map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(result.answer);
    expect(result.answer).not.toMatch(/\banswer [A-E]\b/i);
    const decisions = await p.store.listDecisions(10);
    expect(decisions.find((d) => d.runId === result.runId)).toMatchObject({ question, verdict });
  });

  it('the router sends a decision to the council', async () => {
    const { result, events } = await p.run({ query: 'Should we hire a second designer or a contractor?' });
    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'council' });
    expect(ofType(events, 'node.started').map((e) => e.node)).toEqual(['usage_guard', 'router', 'council']);
    expect(result.status).toBe('completed');
  });

  it('runs as a plan step with specialist "council"', async () => {
    const query = 'Decide the launch strategy and write the announcement';
    p.givePlan(
      query,
      GraphPlanSchema.parse({
        steps: [
          { id: 'decide', specialist: 'council', objective: 'Which launch strategy should we pick?' },
          { id: 'announce', specialist: 'writer', objective: 'Announce it: {{decide.result}}', dependsOn: ['decide'] },
        ],
      }),
    );
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    expect(result.status).toBe('completed');
    const decide = ofType(events, 'step.finished').find((e) => e.stepId === 'decide')!;
    expect(decide).toMatchObject({ status: 'succeeded', lineage: { kind: 'council' } });
    expect(decide.lineage!.usage.modelCalls).toBe(9);
    expect(decide.output).toMatch(/^Recommendation: /);
    expect(ofType(events, 'step.started').find((e) => e.stepId === 'announce')!.objective).toContain(decide.output!);
    expect((await p.store.listDecisions(10)).some((d) => d.runId === result.runId)).toBe(true);
  });
});

describe('council models', () => {
  it('each advisor may use its own model', async () => {
    const q = await createTestParley();
    try {
      const advisorModels = ['model-a', 'model-b', 'model-c', 'model-d', 'model-e'];
      // Every model a run calls needs a price (issue #12 §5); these stand-ins are free.
      const prices = createPriceCatalog(
        Object.fromEntries(['scripted', ...advisorModels].map((m) => [m, { input: 0, output: 0 }])),
      );
      const engine = new Engine({ ...q.deps, prices, councilAdvisorModels: advisorModels });
      const handle = engine.start({ query: 'Should we open a second office?', mode: 'council', protocol: 'test' });
      expect((await handle.result).status).toBe('completed');
      const advisors = q.scripted.requests.filter((r) => r.runId === handle.id && r.role === 'council_advisor');
      expect(advisors.map((r) => r.model).sort()).toEqual(['model-a', 'model-b', 'model-c', 'model-d', 'model-e']);
      await engine.close();
    } finally {
      await q.close();
    }
  });
});
