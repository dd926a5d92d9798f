/**
 * A planner's plan may use only the specialists it was offered (the top-k candidates, plus the council
 * when it was offered): a registered specialist the planner was not shown is rejected like an unknown one.
 */
import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

// One candidate per query, so most of the roster is registered but not offered.
const p = useTestParley({ config: { knowledge: { topK: 1 } } });

/** The specialist ids in the last <parley:specialists> block of a planner call. */
function offeredIn(body: unknown): string[] {
  const text = JSON.stringify(body);
  const blocks = [...text.matchAll(/<parley:specialists>(.*?)<\/parley:specialists>/g)];
  const json = JSON.parse(JSON.parse(`"${blocks.at(-1)![1]!}"`)) as { id: string }[];
  return json.map((s) => s.id);
}

describe('plan validation against the offered candidates', () => {
  it('rejects a registered specialist the planner was not offered, sends the plan back once, then fails naming it', async () => {
    const query = 'Write the release notes for the changelog [[route:plan]] [[planspecialist:security]]';
    const { result, events } = await p.run({ query, mode: 'orchestrate' });

    const plans = callsOf(p.scripted.requests, result.runId, 'graph_plan');
    expect(plans).toHaveLength(2);
    const offered = offeredIn(plans[0]!.body);
    expect(offered).toEqual(['writer']);
    expect(offered).not.toContain('security');
    expect(await p.store.getSpecialist('security')).toBeDefined();
    expect(JSON.stringify(plans[1]!.body)).toContain('which the planner was not offered');
    expect(result.status).toBe('failed');
    expect(result.error).toContain('step "s1" uses specialist "security", which the planner was not offered');
    expect(ofType(events, 'step.started')).toHaveLength(0);
  });

  it('accepts a plan that uses an offered candidate', async () => {
    const query = 'Write the release notes for the changelog [[route:plan]] [[planspecialist:writer]]';
    const { result, events } = await p.run({ query, mode: 'orchestrate' });
    const plans = callsOf(p.scripted.requests, result.runId, 'graph_plan');
    expect(offeredIn(plans[0]!.body)).toContain('writer');
    expect(plans).toHaveLength(1);
    expect(result.status).toBe('completed');
    expect(ofType(events, 'step.started').map((e) => e.specialist)).toEqual(['writer']);
  });
});
