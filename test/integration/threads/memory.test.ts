/**
 * Execution memory, the thread first (docs/threads.md "History within a budget"): a follow-up's
 * specialists get the thread's own turns as its history, and execution memory brings only similar runs
 * of other conversations — never the thread's own earlier run a second time. Read from the scripted
 * model's request log.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { callsOf } from '../../support/run-events.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await createTestParley();
});
afterAll(() => parley?.close());

const QUERY = (word: string) => `[[route:plan]] [[steps:1]] Summarize the harbour logistics report ${word}`;
const systemOf = (body: unknown) =>
  (body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'system')!.content;

describe('execution memory leaves out the runs of the thread itself', () => {
  it("a follow-up's specialist sees the first turn in its history, and memory only of another conversation", async () => {
    const other = await parley.run({ query: QUERY('OTHERCONV') });
    const threadId = randomUUID();
    const first = await parley.run({ query: QUERY('FIRSTTURN'), threadId });
    // Both are in execution memory before the follow-up asks.
    await vi.waitFor(async () => {
      const ids = (await parley.store.searchMemory(QUERY('x'), 10, { callerId: 'anonymous' })).map((h) => h.runId);
      expect(ids).toEqual(expect.arrayContaining([other.result.runId, first.result.runId]));
    });
    const second = await parley.run({ query: QUERY('SECONDTURN'), threadId });
    const specialist = callsOf(parley.scripted.requests, second.result.runId).find((r) => r.role === 'specialist')!;
    const system = systemOf(specialist.body);
    const history = system.indexOf('The conversation so far');
    const memory = system.indexOf('Earlier runs of this user on similar requests');
    expect(history).toBeGreaterThan(-1);
    expect(memory, 'similar runs follow the thread').toBeGreaterThan(history);
    expect(system.slice(history, memory)).toContain('FIRSTTURN');
    expect(system.slice(memory)).toContain(`Request: ${QUERY('OTHERCONV')}`);
    expect(system.slice(memory)).not.toContain('FIRSTTURN');
  });
});

describe("the router's view of the thread", () => {
  it('gets the conversation in its own parley:history block before the query, not in its system prompt', async () => {
    const threadId = randomUUID();
    await parley.run({ query: QUERY('ROUTERFIRST'), threadId });
    const second = await parley.run({ query: QUERY('ROUTERSECOND'), threadId });
    const router = callsOf(parley.scripted.requests, second.result.runId, 'route')[0]!;
    expect(systemOf(router.body)).not.toContain('ROUTERFIRST');
    expect(router.lastUserMessage).toMatch(
      /^<parley:history>User: [^\n]*ROUTERFIRST[\s\S]*<\/parley:history>\n\n<parley:query>[^<]*ROUTERSECOND/,
    );
  });
});
