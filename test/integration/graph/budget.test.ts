import { describe, expect, it } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf, ofType } from '../../support/run-events.ts';
import { MODEL_ROLES } from '../../../src/llm/types.ts';

const p = useTestParley({ config: { budget: { caller: { runsPerMinute: 3 } } } });

describe('usage guard', () => {
  it('blocks before the model call that would exceed the call budget (the server never sees it)', async () => {
    // route, graph_plan, 2 specialist calls, verification = 5; the synthesizer would be the 6th.
    const { result, events } = await p.run({
      query: 'Write a report on coffee [[steps:2]]',
      budget: { modelCalls: 5 },
      caller: { id: 'budget-a' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toBe('model call budget: run has made 5 of 5 model calls');
    const calls = callsOf(p.scripted.requests, result.runId);
    expect(calls).toHaveLength(5);
    expect(calls.map((c) => c.schemaName ?? c.role)).not.toContain('synthesizer');
    expect(result.usage.modelCalls).toBe(5);
    expect(ofType(events, 'run.finished')[0]).toMatchObject({ status: 'blocked', error: result.error });
    expect(ofType(events, 'answer.delta')).toHaveLength(0);
  });

  it('blocks on the token budget by reservation, before sending the call', async () => {
    const { result } = await p.run({
      query: 'Write a report on tea [[steps:2]]',
      budget: { tokens: 50 },
      caller: { id: 'budget-b' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(/^token budget: run has used 0 of 50 tokens and the next call needs about \d+$/);
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(0);
  });

  it('reserves the estimated cost of the next call (priced model) and blocks before sending it', async () => {
    const models = Object.fromEntries(MODEL_ROLES.map((r) => [r, 'gpt-4o']));
    const { result } = await p.run({
      query: 'Write a report on cheese [[steps:2]]',
      mode: 'orchestrate',
      models,
      budget: { costUsd: 0.006 },
      caller: { id: 'budget-e' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(
      /^cost budget: run has spent \$0\.00\d+ of \$0\.006 and the next call needs about \$0\.000\d+$/,
    );
    expect(result.usage.costUsd).toBeGreaterThan(0);
    // Every call the server saw was counted and paid for; the refused one never went out.
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(result.usage.modelCalls);
    expect(callsOf(p.scripted.requests, result.runId).every((c) => c.model === 'gpt-4o')).toBe(true);
  });

  it('ignores overrides that would raise a budget', async () => {
    const { result } = await p.run({
      query: 'hello',
      budget: { modelCalls: 10_000, tokens: 1 },
      caller: { id: 'budget-c' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(/token budget/);
  });

  it('ends the whole run blocked when a parallel step cannot reserve its call', async () => {
    // route + plan settle; two of three parallel steps reserve the last two calls; the third is refused.
    const { result, events } = await p.run({
      query: 'Write a report on cocoa [[steps:3]]',
      budget: { modelCalls: 4 },
      caller: { id: 'budget-d' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toBe('model call budget: run has made 4 of 4 model calls (2 still in flight)');
    const calls = callsOf(p.scripted.requests, result.runId);
    expect(calls.length).toBeLessThanOrEqual(4);
    expect(calls.filter((c) => c.role === 'specialist').length).toBeLessThanOrEqual(2);
    expect(ofType(events, 'run.finished')).toHaveLength(1);
    expect(ofType(events, 'verify.result')).toHaveLength(0);
  });

  it('rate-limits a caller per minute with a retry-after, without calling the model', async () => {
    const caller = { id: 'rate-limited' };
    for (let i = 0; i < 3; i++) expect((await p.run({ query: 'hello', caller })).result.status).toBe('completed');
    const { result, events } = await p.run({ query: 'hello', caller });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(/^rate limit: caller "rate-limited" may start 3 runs per minute; retry in \d+ s$/);
    expect(result.retryAfterMs).toBeGreaterThan(0);
    expect(result.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(ofType(events, 'run.finished')[0]!.retryAfterMs).toBe(result.retryAfterMs);
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(0);
    // Other callers are not affected.
    expect((await p.run({ query: 'hello', caller: { id: 'someone-else' } })).result.status).toBe('completed');
  });
});
