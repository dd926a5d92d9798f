/**
 * Decisions are memory too (issue 14 §4): when a later question is close to an earlier council
 * decision of the same caller, the router and the council see the earlier verdict as context and
 * route.decided says so. Driven through the engine with the scripted model; the prompts checked are
 * the model requests the scripted model received.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

const p = useTestParley();
const ALICE = { id: 'alice' };
const BOB = { id: 'bob' };

/** The earlier council decision: its id and verdict, from the store. */
async function decide(question: string, caller = ALICE) {
  const { result } = await p.run({ query: question, mode: 'council', caller });
  expect(result.status).toBe('completed');
  const decision = (await p.store.listDecisions(50)).find((d) => d.runId === result.runId);
  expect(decision).toBeDefined();
  return decision!;
}

const sawEarlier = (runId: string, role: string) =>
  callsOf(p.scripted.requests, runId)
    .filter((c) => c.role === role)
    .map((c) => JSON.stringify(c.body).includes('parley:earlier_decision'));

describe('earlier decisions as context', () => {
  it('a close council question: route.decided names the earlier decision, advisors and chairman see its verdict', async () => {
    const earlier = await decide('Should we adopt the heron release process for the billing team?');
    const { result, events } = await p.run({
      query: 'Should we adopt the heron release process for the billing service?',
      mode: 'council',
      caller: ALICE,
    });
    expect(result.status).toBe('completed');
    const route = ofType(events, 'route.decided')[0]!;
    expect(route.earlierDecision).toMatchObject({
      decisionId: earlier.id,
      runId: earlier.runId,
      question: earlier.question,
    });
    expect(route.earlierDecision!.similarity).toBeGreaterThanOrEqual(0.5);
    // Context, not reuse: the event still says the questions name different things.
    expect(route.earlierDecision!.difference).toMatch(/words differ \(\+service -team\)/);
    expect(route.reason).toContain(`earlier decision "${earlier.question}"`);
    expect(sawEarlier(result.runId, 'council_advisor')).toEqual([true, true, true, true, true]);
    expect(sawEarlier(result.runId, 'council_chairman')).toEqual([true]);
    const chairman = JSON.stringify(
      callsOf(p.scripted.requests, result.runId).find((c) => c.role === 'council_chairman')!.body,
    );
    // The verdict itself, as the block carries it (a JSON string inside the request body's JSON).
    expect(chairman).toContain(JSON.stringify(JSON.stringify(earlier.verdict.recommendation)).slice(1, -1));
  });

  it('the negated form still gets the earlier verdict as context, and the event says how it differs', async () => {
    const earlier = await decide('Should we migrate the osprey ledger to Postgres?');
    const { result, events } = await p.run({
      query: 'Should we not migrate the osprey ledger to Postgres?',
      mode: 'council',
      caller: ALICE,
    });
    const route = ofType(events, 'route.decided')[0]!;
    expect(route.earlierDecision).toMatchObject({ decisionId: earlier.id });
    expect(route.earlierDecision!.difference).toMatch(/negat/i);
    const advisor = JSON.stringify(
      callsOf(p.scripted.requests, result.runId).find((c) => c.role === 'council_advisor')!.body,
    );
    expect(advisor).toContain('Do not assume the same answer');
  });

  it('the router sees it in auto mode too', async () => {
    const earlier = await decide('Should we hire a second designer for the kestrel app?');
    const { result, events } = await p.run({
      query: 'Should we hire a second designer for the kestrel app or a contractor?',
      caller: ALICE,
    });
    const route = ofType(events, 'route.decided')[0]!;
    expect(route).toMatchObject({ stage: 'council', earlierDecision: { decisionId: earlier.id } });
    expect(sawEarlier(result.runId, 'router')).toEqual([true]);
  });

  it('an unrelated question gets no earlier decision', async () => {
    await decide('Should we adopt the wren deployment checklist?');
    const { result, events } = await p.run({
      query: 'Should we rewrite the pelican billing in Rust?',
      mode: 'council',
      caller: ALICE,
    });
    expect(ofType(events, 'route.decided')[0]!.earlierDecision).toBeUndefined();
    expect(sawEarlier(result.runId, 'council_advisor')).toEqual([false, false, false, false, false]);
  });

  it("another caller's close question sees nothing of alice's decision", async () => {
    await decide('Should we sunset the plover reporting dashboard?');
    const { result, events } = await p.run({
      query: 'Should we sunset the plover reporting dashboard?',
      mode: 'council',
      caller: BOB,
    });
    expect(ofType(events, 'route.decided')[0]!.earlierDecision).toBeUndefined();
    expect(sawEarlier(result.runId, 'council_advisor')).toEqual([false, false, false, false, false]);
    expect(sawEarlier(result.runId, 'council_chairman')).toEqual([false]);
  });
});
