import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTerminalRenderer } from '../../../src/cli/render-terminal.ts';
import { createTestParley, type TestParley } from '../../support/engine.ts';

let p: TestParley;
beforeAll(async () => {
  p = await createTestParley();
});
afterAll(async () => {
  await p.close();
});

describe('terminal rendering of a run', () => {
  it('shows route, plan, steps, verification, the streamed answer and usage at the end', async () => {
    const progress: string[] = [];
    let answer = '';
    const render = createTerminalRenderer({ progress: (l) => progress.push(l), answer: (t) => (answer += t) });
    const { result, events } = await p.run({
      query: 'Write the documentation for the build [[steps:2]]',
      mode: 'orchestrate',
    });
    events.forEach(render);
    expect(answer).toBe(`${result.answer}\n`);
    expect(progress[0]).toMatch(/^route: (llm_plan|self_model) — /);
    expect(progress).toContain('plan (round 1):');
    expect(progress.filter((l) => l.startsWith('▶ s'))).toHaveLength(2);
    expect(progress.filter((l) => /^✓ s\d succeeded \(\d+\.\d s\)$/.test(l))).toHaveLength(2);
    expect(progress).toContain('verify round 1: score 0.90 → synthesize');
    expect(progress.at(-1)).toMatch(
      /^— completed · \d+\.\d s · \d+ in \/ \d+ out tokens · (\$\d+\.\d{4}|cost unknown) · 5 model calls · 0 tool calls$/,
    );
  });

  it('a dynamic run shows each spawn, message and team-memory write as it happens', async () => {
    const progress: string[] = [];
    const render = createTerminalRenderer({ progress: (l) => progress.push(l), answer: () => undefined });
    const { result, events } = await p.run({
      query: 'Research security and database design [[spawn:2]] [[message:done here]]',
      mode: 'dynamic',
    });
    events.forEach(render);
    expect(result.status).toBe('completed');
    expect(progress.filter((l) => l.startsWith('  ✚ manager spawned '))).toHaveLength(2);
    // Agents named by role; the two siblings message each other (in id order: database, security).
    expect(progress).toContain('  ✉ database → security: done here');
    expect(progress).toContain('  ✉ security → database: done here');
    expect(progress.some((l) => l.startsWith('  ✎ manager wrote "summary": '))).toBe(true);
  });
});
