/**
 * The versus section's arithmetic and table with repeats (the CLI tests run one repeat): both orders
 * combine into one result (agreement decides, disagreement is a tie), repeats count per case, a comparison
 * not made is counted apart and never in the share won or tied, and the table shows counts per case.
 */
import { describe, expect, it } from 'vitest';
import type { CaseOutcome } from '../../../src/eval/run-suite.ts';
import { formatVersus, versusSummaryOf } from '../../../src/eval/versus-card.ts';
import { combineOrders, type Preference, type VersusOutcome } from '../../../src/eval/versus.ts';

const usage = (calls: number, tokens: number) => ({ calls, inputTokens: tokens, outputTokens: 0, costUsd: 0 });

function outcome(id: string, repeat: number, orders: [Preference, Preference] | 'error'): CaseOutcome {
  const versus: VersusOutcome =
    orders === 'error'
      ? {
          detail: 'the judge call failed: 500',
          error: 'the judge call failed: 500',
          orders: [],
          graphAnswer: 'g',
          direct: { answer: 'd', usage: usage(1, 10) },
          judgeUsage: usage(2, 0),
        }
      : {
          ...combineOrders(orders[0], orders[1]),
          orders: orders.map((pick, i) => ({ graphAs: i ? 'B' : 'A', winner: 'A', pick, reason: `reason ${id}` })),
          graphAnswer: 'g',
          direct: { answer: 'd', usage: usage(1, 10) },
          judgeUsage: usage(2, 100),
        };
  return {
    id,
    repeat,
    pass: true,
    runId: `run-${id}-${repeat}`,
    status: 'completed',
    checks: [],
    usage: { inputTokens: 400, outputTokens: 100, cachedTokens: 0, costUsd: 0, modelCalls: 5, toolCalls: 0 },
    judgeUsage: usage(0, 0),
    durationMs: 10,
    versus,
  };
}

describe('the versus section', () => {
  it('wins only when both orders prefer the graph, loses only when both prefer the direct call, else ties', () => {
    expect(combineOrders('graph', 'graph').result).toBe('win');
    expect(combineOrders('direct', 'direct').result).toBe('loss');
    expect(combineOrders('tie', 'tie').result).toBe('tie');
    for (const [a, b] of [
      ['graph', 'direct'],
      ['direct', 'graph'],
      ['graph', 'tie'],
      ['tie', 'direct'],
    ] as [Preference, Preference][]) {
      const combined = combineOrders(a, b);
      expect(combined.result).toBe('tie');
      expect(combined.detail).toContain('the orders disagreed');
    }
  });

  it('counts repeats per case, keeps comparisons not made apart, and prints counts with --repeat', () => {
    const summary = versusSummaryOf([
      outcome('planned', 1, ['graph', 'graph']),
      outcome('planned', 2, ['graph', 'direct']),
      outcome('planned', 3, 'error'),
      outcome('council', 1, ['direct', 'direct']),
      outcome('council', 2, ['direct', 'direct']),
      outcome('council', 3, ['tie', 'tie']),
    ]);
    expect(
      summary.cases.map(({ id, compared, wins, ties, losses, errors }) => ({
        id,
        compared,
        wins,
        ties,
        losses,
        errors,
      })),
    ).toEqual([
      { id: 'planned', compared: 2, wins: 1, ties: 1, losses: 0, errors: 1 },
      { id: 'council', compared: 3, wins: 0, ties: 1, losses: 2, errors: 0 },
    ]);
    // With repeats there is no single result per case.
    expect(summary.cases[0]!.result).toBeUndefined();
    expect(summary.overall).toMatchObject({
      compared: 5,
      wins: 1,
      ties: 2,
      losses: 2,
      errors: 1,
      wonOrTied: 3,
      wonOrTiedRate: 0.6,
    });
    // Every repeat's spend counts, the failed comparison's too.
    expect(summary.overall.spend.graph).toEqual({ calls: 30, tokens: 3000, costUsd: 0 });
    expect(summary.overall.spend.direct).toEqual({ calls: 6, tokens: 60, costUsd: 0 });
    expect(summary.overall.spend.judge).toEqual({ calls: 12, tokens: 500, costUsd: 0 });
    expect(summary.notes.map((n) => [n.id, n.repeat, n.what])).toEqual([
      ['planned', 3, 'error'],
      ['council', 1, 'loss'],
      ['council', 2, 'loss'],
    ]);

    const text = formatVersus(summary, 3);
    expect(text).toMatch(/^case +result +graph calls +graph tokens +direct calls +direct tokens$/m);
    expect(text).toMatch(/^planned +1W 1T 0L 1E +5 +500 +1 +10$/m);
    expect(text).toMatch(/^council +0W 1T 2L +5 +500 +1 +10$/m);
    expect(text).toMatch(/^overall +1W 2T 2L 1E +30 +3000 +6 +60$/m);
    expect(text).toContain('won or tied: 3 of 5 (60%): 1 win, 2 ties, 2 losses; 1 not compared');
    expect(text).toContain('  council #1 (run run-council-1): reason council');
    expect(text).toContain('not compared:\n  planned #3 (run run-planned-3): the judge call failed: 500');
  });
});
