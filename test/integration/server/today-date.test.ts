/**
 * Models are told the current date (src/graph/prompting/today.ts): a real request through POST /stream
 * reaches the scripted model with "Today is …" at the end of its system prompt, from the engine's clock
 * (fixed here through createParley's `now`) in PARLEY_TIMEZONE (UTC unless set).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../../support/server.ts';
import { postJson, readSse } from '../../support/protocols/sse-read.ts';

let shipped: ShippedParley | undefined;
afterEach(async () => {
  await shipped?.close();
  shipped = undefined;
});

/** 23:30 UTC on Thursday 2026-11-26: already Friday in Tokyo. */
const LATE_THURSDAY_UTC = Date.parse('2026-11-26T23:30:00Z');

/** Runs `query` to its end and returns the system prompt of every model request it made. */
async function systemPrompts(s: ShippedParley, body: object): Promise<string[]> {
  const res = await postJson(`${s.url}/stream`, body);
  expect(res.status).toBe(200);
  let runId = '';
  for await (const m of readSse(res)) {
    runId ||= m.json.runId;
    if (m.json.type === 'run.finished') expect(m.json.status).toBe('completed');
  }
  const requests = s.parley.scripted!.requests.filter((r) => r.runId === runId);
  expect(requests.length).toBeGreaterThan(0);
  return requests.map((r) => {
    const messages = (r.body as { messages: { role: string; content: string }[] }).messages;
    return messages.find((m) => m.role === 'system')?.content ?? '';
  });
}

describe('the date every model is told', () => {
  it("is the engine clock's day in UTC by default, at the end of the system prompt", async () => {
    const start = Date.now();
    shipped = await startShippedParley(
      { PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG },
      { now: () => LATE_THURSDAY_UTC + (Date.now() - start) },
    );
    const systems = await systemPrompts(shipped, { query: 'What happened in tech this year?' });
    for (const system of systems) {
      expect(system).toMatch(
        /\n\nToday is Thursday 2026-11-26 \(time zone UTC\)\. What is current, latest or recent.*not to when your training data ends\.$/,
      );
    }
  });

  it('is the day in PARLEY_TIMEZONE when set', async () => {
    const start = Date.now();
    shipped = await startShippedParley(
      { PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG, PARLEY_TIMEZONE: 'Asia/Tokyo' },
      { now: () => LATE_THURSDAY_UTC + (Date.now() - start) },
    );
    const systems = await systemPrompts(shipped, { query: 'What day is it tomorrow?', mode: 'direct' });
    expect(systems).toHaveLength(1);
    expect(systems[0]).toContain('Today is Friday 2026-11-27 (time zone Asia/Tokyo).');
  });
});
