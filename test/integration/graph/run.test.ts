import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

const p = useTestParley();

describe('a full run', () => {
  it('emits the documented sequence and ends in exactly one run.finished', async () => {
    const { result, events } = await p.run({ query: 'Analyse the sales data trends and write a report about them' });
    expect(result.status).toBe('completed');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([result.runId]));
    expect(events[0]!.type).toBe('run.started');
    expect(events.at(-1)!.type).toBe('run.finished');
    expect(ofType(events, 'run.finished')).toHaveLength(1);

    // The L0 path, in order.
    const nodes = ofType(events, 'node.started').map((e) => e.node);
    expect(nodes).toEqual([
      'usage_guard',
      'router',
      'dispatcher',
      'memory',
      'dispatcher',
      'execution_joiner',
      'dispatcher',
      'verifier',
      'synthesizer',
    ]);
    const order = (type: string) => events.findIndex((e) => e.type === type);
    expect(order('route.decided')).toBeLessThan(order('plan.ready'));
    expect(order('plan.ready')).toBeLessThan(order('step.started'));
    expect(order('step.finished')).toBeLessThan(order('verify.result'));
    expect(order('verify.result')).toBeLessThan(order('answer.delta'));

    const plan = ofType(events, 'plan.ready')[0]!.plan;
    const finished = ofType(events, 'step.finished');
    expect(finished.map((e) => e.stepId).sort()).toEqual(plan.steps.map((s) => s.id).sort());
    for (const f of finished) {
      expect(f.status).toBe('succeeded');
      expect(f.lineage).toMatchObject({ specialist: f.specialist, kind: 'prompt', attempt: 1 });
      expect(f.lineage!.usage.modelCalls).toBe(1);
    }
    expect(ofType(events, 'verify.result')[0]).toMatchObject({ round: 1, score: 0.9, next: 'synthesize' });

    // The answer is the concatenated deltas; the steps it was written from come as data, not as appended text.
    const answer = ofType(events, 'answer.delta')
      .map((e) => e.text)
      .join('');
    expect(result.answer).toBe(answer);
    expect(result.sources).toEqual(plan.steps.map((s) => ({ stepId: s.id, specialist: s.specialist })));
    expect(answer).not.toMatch(/Steps used/);
    const end = ofType(events, 'run.finished')[0]!;
    expect(end).toMatchObject({ status: 'completed', answer });
    // Usage counts every call the scripted server answered for this run.
    expect(end.usage.modelCalls).toBe(callsOf(p.scripted.requests, result.runId).length);
    // And the run is in execution memory with its verifier score.
    const stored = await p.store.getRun(result.runId);
    expect(stored).toMatchObject({ status: 'completed', score: 0.9 });
    expect(stored!.steps).toHaveLength(plan.steps.length);
  });

  it('answers a greeting on the fast path with one routed call and one answer call', async () => {
    const { result, events } = await p.run({ query: 'hello there' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'direct' });
    expect(ofType(events, 'node.started').map((e) => e.node)).toEqual(['usage_guard', 'router', 'direct_answer']);
    const calls = callsOf(p.scripted.requests, result.runId);
    expect(calls.map((c) => c.schemaName ?? 'text')).toEqual(['route', 'text']);
    expect(result.answer).toContain('hello there');
  });

  it('skips the route call when the request names the mode', async () => {
    const { result, events } = await p.run({ query: 'What is TypeScript', mode: 'direct' });
    expect(result.status).toBe('completed');
    expect(ofType(events, 'route.decided')[0]).toMatchObject({ stage: 'direct', reason: 'mode "direct" requested' });
    expect(callsOf(p.scripted.requests, result.runId, 'route')).toHaveLength(0);
  });

  it('fails a bad request clearly without calling the model', async () => {
    const { result, events } = await p.run({ query: '   ' });
    expect(result).toMatchObject({ status: 'failed', error: 'the query is empty' });
    expect(events.map((e) => e.type)).toEqual(['run.started', 'run.finished']);
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(0);
  });

  it('replays retained history to late and resuming consumers, and refuses a duplicate run id', async () => {
    const handle = p.engine.start({
      query: 'Write a short summary about coffee',
      protocol: 'test',
      mode: 'orchestrate',
    });
    const result = await handle.result;
    const all: number[] = [];
    for await (const e of p.engine.get(handle.id)!.events()) all.push(e.seq);
    const tail: number[] = [];
    for await (const e of handle.events(all.length - 2)) tail.push(e.seq);
    expect(tail).toEqual([all.length - 1, all.length]);

    const dup = p.engine.start({ runId: handle.id, query: 'again', protocol: 'test' });
    expect(await dup.result).toMatchObject({ status: 'failed', error: `run id "${handle.id}" is already in use` });
    expect((await p.engine.get(handle.id)!.result).answer).toBe(result.answer);
  });
});
