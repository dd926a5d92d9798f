/**
 * Relevance before recall (issue 43 §4): execution memory enters a run's prompts only when an earlier
 * run's request is at least MEMORY_MIN_RELEVANCE relevant to this one (an absolute measure, calibrated in
 * docs/learning.md), not because it is the best of what memory holds. Driven through the engine with the
 * scripted model; what the model was told is read from its request log.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { useTestParley } from '../../support/use-test-parley.ts';
import { callsOf } from '../../support/run-events.ts';

const p = useTestParley();
const caller = () => ({ id: `memory-${randomUUID()}` });

/** Every model request of a run, as the text sent. */
const requestsOf = (runId: string) => callsOf(p.scripted.requests, runId).map((c) => JSON.stringify(c.body));

/** Runs a planned query to completion; its model requests, as sent. */
async function planned(query: string, who: { id: string }) {
  const { result } = await p.run({ query, mode: 'orchestrate', caller: who });
  expect(result.status).toBe('completed');
  return requestsOf(result.runId);
}

/** Runs a planned query to completion and waits until execution memory has it. */
async function remembered(query: string, who: { id: string }) {
  const { result } = await p.run({ query, mode: 'orchestrate', caller: who });
  expect(result.status).toBe('completed');
  await vi.waitFor(async () => {
    const hits = await p.store.searchMemory(query, 5, { callerId: who.id });
    expect(hits.map((h) => h.runId)).toContain(result.runId);
  });
  return result;
}

describe('execution memory is held to an absolute relevance', () => {
  it('an unrelated later run gets none of an earlier run, a closely related one gets it with why', async () => {
    const who = caller();
    const earlierQuery = 'Compare the best Python HTTP client libraries for our billing backend';
    const earlier = await remembered(earlierQuery, who);
    const earlierAnswer = earlier.answer!;
    expect(earlierAnswer.length).toBeGreaterThan(20);

    // Shares "billing backend" with it (and, before the threshold, got it as the best hit: relevance 1.0).
    const unrelatedRequests = await planned('Write the release notes for the billing backend deploy', who);
    expect(unrelatedRequests.length, 'route, plan, steps, verifier, synthesizer').toBeGreaterThanOrEqual(4);
    for (const body of unrelatedRequests) {
      expect(body).not.toContain(earlier.runId);
      expect(body).not.toContain(earlierQuery);
      expect(body).not.toContain(JSON.stringify(earlierAnswer).slice(1, -1));
      expect(body).not.toContain('Earlier runs of this user');
    }

    const relatedRequests = await planned('Which Python HTTP client library should our billing backend use?', who);
    const withMemory = relatedRequests.filter((body) => body.includes(earlierQuery));
    // The specialists and the synthesizer get it; the planner and the verifier take no memory.
    expect(withMemory.length).toBeGreaterThanOrEqual(2);
    for (const body of withMemory) {
      expect(body).toContain(
        'An earlier run on a similar request (shared terms: python, http, client, library, billing, backend). It completed, and the verifier scored it 0.9 of 1.',
      );
      // The run id means nothing to the reader: it stays out of the prompt.
      expect(body).not.toContain(earlier.runId);
    }
  });

  it('puts the thread before the memory in the synthesizer request', async () => {
    const who = caller();
    const earlierQuery = 'Plan the migration of the invoice service from MySQL to Postgres';
    await remembered(earlierQuery, who);
    const threadId = randomUUID();
    await p.run({ query: 'List the tables of the invoice service schema', mode: 'orchestrate', caller: who, threadId });
    const followUp = await p.run({
      query: 'How should we migrate the invoice service from MySQL to Postgres without downtime?',
      mode: 'orchestrate',
      caller: who,
      threadId,
    });
    const synth = callsOf(p.scripted.requests, followUp.result.runId).find((c) => c.role === 'synthesizer')!;
    const messages = (synth.body as { messages: { role: string; content: string }[] }).messages;
    const turn = messages.findIndex((m) => m.role === 'user' && m.content.includes('List the tables'));
    const memory = messages.findIndex((m) => m.role === 'system' && m.content.includes(earlierQuery));
    expect(turn).toBeGreaterThan(0);
    expect(memory, 'the memory follows the thread').toBeGreaterThan(turn);
    expect(messages.at(-1)!.role).toBe('user');
  });
});
