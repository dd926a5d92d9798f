import { describe, expect, it } from 'vitest';
import { createTestParley } from '../../support/engine.ts';
import { useTestParley } from '../../support/use-test-parley.ts';
import { CouncilRecordSchema } from '../../../src/graph/prompting/schemas.ts';
import { ADVISORS, confidenceInWords } from '../../../src/graph/specialists/council.ts';
import { expectAdvice, expectVerdictData } from '../../support/council-answer.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { GraphPlanSchema } from '../../../src/graph/planning/graph-plan.ts';
import { createPriceCatalog } from '../../../src/llm/prices.ts';
import { Engine } from '../../../src/graph/engine.ts';

const p = useTestParley();

/** A request's candidate blocks, label → text, in the order the request shows them. */
const candidatesOf = (text: string): [string, string][] =>
  [...text.matchAll(/<parley:candidate label="([^"]*)">\n([\s\S]*?)\n<\/parley:candidate>/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]);

/** The property names of the JSON schema a structured request sent, in order. */
const fieldsOf = (body: unknown) =>
  Object.keys(
    (body as { response_format: { json_schema: { schema: { properties: object } } } }).response_format.json_schema
      .schema.properties,
  );

describe('council', () => {
  it('mode council: 5 advisors, 3 blind reviews each under its own labels, a compared verdict stored as a Decision, advice as the answer', async () => {
    const question = 'Should we rewrite the billing service in Rust?';
    const { result, events } = await p.run({ query: question, mode: 'council' });
    expect(result.status).toBe('completed');
    const stages = ofType(events, 'council.stage');
    expect(stages.map((e) => e.stage)).toEqual(['advisors', 'reviews', 'verdict']);
    const calls = callsOf(p.scripted.requests, result.runId);
    const advisors = calls.filter((c) => c.role === 'council_advisor');
    expect(advisors).toHaveLength(5);
    // Each advisor got its own thinking style; what each answered, by advisor id.
    const textOf = new Map<string, string>(
      advisors.map((c) => {
        const system = JSON.stringify(c.body);
        const advisor = ADVISORS.find((a) => system.includes(JSON.stringify(a.style).slice(1, -1)))!;
        return [advisor.id, c.answer!] as const;
      }),
    );
    expect([...textOf.keys()].sort()).toEqual(ADVISORS.map((a) => a.id).sort());
    expect(new Set(textOf.values()).size).toBe(5);

    // Reviewers: one delimited block per candidate, labels A–E in order, no escaped JSON of answers.
    const reviews = calls.filter((c) => c.schemaName === 'council_review');
    expect(reviews).toHaveLength(3);
    const reviewerLabels = stages.find((e) => e.stage === 'reviews')!.labels!;
    expect(reviewerLabels).toHaveLength(3);
    reviews.forEach((r, i) => {
      const blocks = candidatesOf(r.lastUserMessage);
      expect(blocks.map(([label]) => label)).toEqual(['A', 'B', 'C', 'D', 'E']);
      expect(r.lastUserMessage).not.toMatch(/<parley:answers>|\\"/);
      // The event's mapping is exactly what this reviewer was shown: its label → that advisor's answer.
      const mapping = reviewerLabels[i]!;
      expect(Object.keys(mapping)).toEqual(['A', 'B', 'C', 'D', 'E']);
      for (const [label, text] of blocks) expect(text).toBe(textOf.get(mapping[label]!));
      // Reviewers saw labels, never advisor names or ids.
      expect(JSON.stringify(r.body)).not.toMatch(/Contrarian|Expansionist|first-principles/);
      // It assesses each answer before it ranks them.
      expect(fieldsOf(r.body)).toEqual(['assessments', 'ranking']);
    });
    // Each reviewer has its own labels: every advisor is under a different label (and position) for each reviewer.
    for (const advisor of textOf.keys()) {
      const labels = reviewerLabels.map((m) => Object.entries(m).find(([, a]) => a === advisor)![0]);
      expect(new Set(labels).size).toBe(3);
    }

    // The chairman: its own labels (on the verdict event), the reviews translated into them, comparison first.
    const chairman = calls.find((c) => c.schemaName === 'council_verdict')!;
    expect(calls.filter((c) => c.schemaName === 'council_verdict')).toHaveLength(1);
    const verdictStage = stages.at(-1)!;
    const chairLabels = verdictStage.labels![0]!;
    for (const [label, text] of candidatesOf(chairman.lastUserMessage))
      expect(text).toBe(textOf.get(chairLabels[label]!));
    const verdict = verdictStage.verdict!;
    const labelOf = (advisor: string) => Object.entries(chairLabels).find(([, a]) => a === advisor)![0];
    // One delimited block per reviewer, its ranking and critiques in the chairman's labels.
    const sentRankings = [
      ...chairman.lastUserMessage.matchAll(/<parley:review reviewer="(\d)">\nRanking, best first: ([A-E, ]+)\n/g),
    ].map((m) => m[2]!.split(', '));
    expect(sentRankings).toEqual(verdict.rankings!.map((r) => r.ranking.map(labelOf)));
    expect(chairman.lastUserMessage).not.toMatch(/<parley:reviews>|\\"/);
    const fields = fieldsOf(chairman.body);
    expect(fields[0]).toBe('comparison');
    expect(fields.at(-1)).toBe('answer');
    expect(JSON.stringify(chairman.body)).not.toMatch(/first-principles/);

    // The verdict is data (with its confidence, its reason and each reviewer's ranking by advisor id) ...
    expect(CouncilRecordSchema.parse(verdict)).toEqual(verdict);
    expectVerdictData(verdict);
    expect(verdictStage.detail).toBe(
      `the chairman is ${confidenceInWords(verdict.confidence)}: ${verdict.confidenceReason}`,
    );
    for (const r of verdict.rankings!) expect([...r.ranking].sort()).toEqual([...textOf.keys()].sort());
    // ... and the answer is the chairman's advice: streamed by paragraph, no record sections, no labels or mapping.
    expect(result.answer).toBe(verdict.answer);
    expectAdvice(result.answer);
    const deltas = ofType(events, 'answer.delta').map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(result.answer);
    for (const id of textOf.keys()) expect(result.answer).not.toContain(id);
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
    // The step's output is the council's advice, as the run's answer would be.
    expectAdvice(decide.output);
    expect(decide.output).toMatch(/^Follow the strongest advice: /);
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
