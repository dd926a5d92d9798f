/**
 * Budgets that cannot be dodged (issue #12 §5), on the real engine and the scripted model over HTTP:
 * a reservation covers the call's maximum output, so concurrent steps stay within a small token
 * budget; threads have budgets of their own; a model without a price is refused.
 */
import { describe, expect, it } from 'vitest';
import { totalTokens } from '../../../src/graph/spending/usage.ts';
import { type TestParley } from '../../support/engine.ts';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf } from '../../support/run-events.ts';

const maxTokensOf = (call: { body: unknown }) => (call.body as { max_tokens?: number }).max_tokens;

const wide = useTestParley({ maxOutputTokens: 1_500 });
const p = useTestParley();
// Calls of at most 300 output tokens: several fit in a small budget at once.
const small = useTestParley({ maxOutputTokens: 300, config: { budget: { thread: { tokens: 4_000 } } } });

describe('a reservation covers the maximum output', () => {
  it('concurrent steps against a small token budget end within it plus at most one reserved call; each call is sent with the max output it reserved', async () => {
    const budget = 5_000;
    const maxOutput = 1_500;
    const pad =
      ' Cover origins, trade routes, preparation, chemistry, health, culture, economics and rituals in detail.'.repeat(
        8,
      );
    const query = `Write a thorough report on tea, coffee, cocoa and mate.${pad} [[steps:4]] [[latency:150]]`;
    const { result, events } = await wide.run({
      query,
      mode: 'orchestrate',
      budget: { tokens: budget },
      caller: { id: 'bounds-a' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(/^token budget: run has used \d+ of 5000 tokens/);
    // (Before reservations covered the output, this run used 6,750 of 5,000 tokens.)
    expect(totalTokens(result.usage)).toBeLessThanOrEqual(budget + maxOutput);
    // The four steps did start side by side before the budget stopped them.
    expect(events.filter((e) => e.type === 'step.started')).toHaveLength(4);
    const sent = callsOf(wide.scripted.requests, result.runId);
    expect(sent.length).toBe(result.usage.modelCalls);
    for (const call of sent) expect(maxTokensOf(call)).toBeLessThanOrEqual(maxOutput);
  });

  it("the max output sent is the role's default when the budget has room: the router's sized to its answer, the answer's 8192", async () => {
    const { result } = await p.run({ query: 'hello', caller: { id: 'bounds-b' } });
    expect(result.status).toBe('completed');
    const [route, answer] = callsOf(p.scripted.requests, result.runId);
    // The router answers a two-field JSON (issue 43: it was sent 8192).
    expect(route!.schemaName).toBe('route');
    expect(maxTokensOf(route!)).toBe(2048);
    expect(answer!.role).toBe('default');
    expect(maxTokensOf(answer!)).toBe(8192);
  });
});

describe('thread budgets', () => {
  it("a thread's runs share its budget; another thread of the same caller is not affected", async () => {
    await threadRuns(small);
  });
});

async function threadRuns(p: TestParley): Promise<void> {
  {
    const threadId = 'bounds-thread-1';
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { result } = await p.run({
        query: `Tell me about tea, part ${i} [[steps:2]]`,
        mode: 'orchestrate',
        threadId,
        caller: { id: 'bounds-c' },
      });
      seen.push(result.status);
      if (result.status === 'blocked') {
        expect(result.error).toMatch(
          /^thread token budget: thread "bounds-thread-1" has used \d+ of 4000 tokens in this window$/,
        );
        break;
      }
    }
    // One orchestrated run fits (about 1,800 tokens); the thread's later runs are refused.
    expect(seen[0]).toBe('completed');
    expect(seen.at(-1)).toBe('blocked');
    const other = await p.run({ query: 'hello', threadId: 'bounds-thread-2', caller: { id: 'bounds-c' } });
    expect(other.result.status).toBe('completed');
    // The same thread id under another caller is another thread.
    const stranger = await p.run({ query: 'hello', threadId, caller: { id: 'bounds-d' } });
    expect(stranger.result.status).toBe('completed');
  }
}

describe('prices', () => {
  it('a model without a price is refused before its call is sent, naming the model and the fix', async () => {
    const { result } = await p.run({
      query: 'hello',
      models: { default: 'mystery-model-9000', router: 'mystery-model-9000' },
      caller: { id: 'bounds-e' },
    });
    expect(result.status).toBe('blocked');
    expect(result.error).toMatch(/model "mystery-model-9000" has no price .*prices\.json.*PARLEY_FREE_MODELS/);
    expect(callsOf(p.scripted.requests, result.runId)).toHaveLength(0);
  });
});
