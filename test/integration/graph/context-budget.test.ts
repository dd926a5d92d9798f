/**
 * No silent cuts (docs/engine.md "Context budgets"): a 3,000-word step output ([[words:3000]]) reaches
 * the verifier and the synthesizer whole when it fits their model's context window, and summarized —
 * by a metered `summarizer` call, marked with its original length — when it does not; never cut with
 * "[truncated]". A dependency's result reaches the dependent step inside a <parley:result> block, and
 * no {{id.result}} is left in it. Read from the scripted model's request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestParley, type TestParley } from '../../support/engine.ts';
import { callsOf, ofType } from '../../support/run-events.ts';

interface StepEntry {
  id: string;
  output: string;
  summarized?: boolean;
  originalChars?: number;
  note?: string;
}

const bodyText = (body: unknown) => JSON.stringify((body as { messages?: unknown }).messages ?? []);

/** The <parley:steps> block of a request (the last one, as the scripted model reads it). */
function stepsOf(body: unknown): StepEntry[] {
  const messages = (body as { messages: { content: unknown }[] }).messages;
  const texts = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  const found = [...texts.join('\n').matchAll(/<parley:steps>([\s\S]*?)<\/parley:steps>/g)].at(-1);
  return JSON.parse(found![1]!) as StepEntry[];
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('a long step output within the context window reaches the judges whole', () => {
  let parley: TestParley;
  beforeAll(async () => {
    parley = await createTestParley();
  });
  afterAll(() => parley?.close());

  it('3,000 words reach the verifier and the synthesizer whole; a dependent step gets it delimited', async () => {
    const { result } = await parley.run({
      query: '[[route:plan]] [[steps:2]] [[chain]] [[words:3000]] Write the long inventory report',
    });
    expect(result.status).toBe('completed');
    const calls = callsOf(parley.scripted.requests, result.runId);
    for (const role of ['verifier', 'synthesizer']) {
      const call = calls.find((r) => r.role === role)!;
      expect(call, role).toBeDefined();
      const steps = stepsOf(call.body);
      expect(steps).toHaveLength(2);
      for (const s of steps) {
        expect(wordCount(s.output), `${role} sees ${s.id} whole`).toBe(3000);
        expect(s.output.trim().endsWith('w3000')).toBe(true);
        expect(s.summarized).toBeUndefined();
      }
      expect(bodyText(call.body)).not.toContain('[truncated]');
    }
    expect(calls.filter((r) => r.role === 'summarizer')).toEqual([]);

    // The chained step quotes the first one's result: inlined whole, inside its delimiter.
    const second = calls
      .filter((r) => r.role === 'specialist')
      .find((r) => bodyText(r.body).includes('<parley:result'))!;
    expect(second).toBeDefined();
    const user = (second.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === 'user',
    )!.content;
    const inlined = /<parley:result step="s1">([\s\S]*?)<\/parley:result>/.exec(user);
    expect(inlined, 'the result of s1 is delimited').not.toBeNull();
    expect(wordCount(inlined![1]!)).toBe(3000);
    expect(user).not.toMatch(/\{\{\s*[\w-]+\.result\s*\}\}/);
  });
});

describe('over the context window, step outputs are summarized and marked, never cut', () => {
  let parley: TestParley;
  beforeAll(async () => {
    // Windows too small for a 3,000-word output (about 4,500 tokens): every reader needs a summary. 3100:
    // the verifier's and the synthesizer's room round to the same summary length (one summary, asserted below).
    parley = await createTestParley({
      env: {
        PARLEY_MODEL_VERIFIER_CONTEXT_WINDOW: '3100',
        PARLEY_MODEL_SYNTHESIZER_CONTEXT_WINDOW: '3100',
        PARLEY_MODEL_SPECIALIST_CONTEXT_WINDOW: '3100',
      },
    });
  });
  afterAll(() => parley?.close());

  it('the verifier, the synthesizer and the dependent step see a marked summary made by a metered call', async () => {
    const { result, events } = await parley.run({
      query: '[[route:plan]] [[steps:2]] [[chain]] [[words:3000]] Write the long warehouse report',
    });
    expect(result.status).toBe('completed');
    const calls = callsOf(parley.scripted.requests, result.runId);
    const summaries = calls.filter((r) => r.role === 'summarizer');
    // Summaries of s1 (for the dependent step, then the verifier) and s2 (for the verifier), each in parts
    // when too long for the summarizer's own window; the synthesizer (same model, nearly the same room)
    // reuses the verifier's: no summarizing call comes after the verifier's.
    const summarized = summaries.map((r) => /step \\"(s\d)\\"/.exec(bodyText(r.body))?.[1]);
    expect([...new Set(summarized)].sort()).toEqual(['s1', 's2']);
    const verifierCall = calls.find((r) => r.role === 'verifier')!;
    expect(summaries.every((r) => r.id < verifierCall.id)).toBe(true);
    // Metered: every summarizing call is in the run's usage (one model call each).
    const finished = ofType(events, 'run.finished')[0]!;
    expect(finished.usage.modelCalls).toBe(calls.filter((r) => r.endpoint === 'chat.completions').length);

    const full = ofType(events, 'step.finished').find((e) => e.stepId === 's1')!.output!;
    for (const role of ['verifier', 'synthesizer']) {
      const call = calls.find((r) => r.role === role)!;
      for (const s of stepsOf(call.body)) {
        expect(s.summarized, `${role} is told ${s.id} was summarized`).toBe(true);
        expect(s.note).toMatch(/summarized by Parley to fit the context/);
        expect(s.output.startsWith('Summary:')).toBe(true);
        expect(s.output.length).toBeLessThan(full.length);
      }
      expect(stepsOf(call.body).find((s) => s.id === 's1')!.originalChars).toBe(full.length);
      expect(bodyText(call.body)).not.toContain('[truncated]');
    }
    const second = calls
      .filter((r) => r.role === 'specialist')
      .find((r) => bodyText(r.body).includes('<parley:result'))!;
    expect(bodyText(second.body)).toContain(
      `<parley:result step=\\"s1\\" summarized=\\"true\\" originalChars=\\"${full.length}\\">`,
    );
  });
});
