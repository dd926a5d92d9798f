/**
 * The scorecard of a suite run (docs/evals.md): per case its pass rate over the repeats, pass^k (every
 * repeat passed), mean calls, tokens, cost and wall time; overall the same; then each failed check
 * with what was found. As a table for the terminal and as JSON for tools.
 */
import type { CaseOutcome } from './run-suite.ts';

export interface CaseScore {
  id: string;
  runs: number;
  passed: number;
  passRate: number;
  /** 1 when every repeat passed (τ-bench's pass^k for this case), else 0. */
  passAll: number;
  meanCalls: number;
  meanTokens: number;
  /** null when a run used a model without a price. */
  meanCostUsd: number | null;
  meanWallMs: number;
}

export interface Scorecard {
  suite: string;
  repeat: number;
  cases: CaseScore[];
  overall: { runs: number; passed: number; passRate: number; passHatK: number; cases: number; casesPassedAll: number };
  failures: { id: string; repeat: number; runId: string; check: string; detail: string }[];
  outcomes: CaseOutcome[];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function scorecardOf(suite: string, repeat: number, outcomes: CaseOutcome[]): Scorecard {
  const ids = [...new Set(outcomes.map((o) => o.id))];
  const cases = ids.map((id): CaseScore => {
    const runs = outcomes.filter((o) => o.id === id);
    const passed = runs.filter((o) => o.pass).length;
    const costs = runs.map((o) => o.usage.costUsd);
    return {
      id,
      runs: runs.length,
      passed,
      passRate: passed / runs.length,
      passAll: passed === runs.length ? 1 : 0,
      meanCalls: mean(runs.map((o) => o.usage.modelCalls)),
      meanTokens: mean(runs.map((o) => o.usage.inputTokens + o.usage.outputTokens)),
      meanCostUsd: costs.some((c) => c === null) ? null : mean(costs as number[]),
      meanWallMs: mean(runs.map((o) => o.durationMs)),
    };
  });
  const passed = outcomes.filter((o) => o.pass).length;
  const casesPassedAll = cases.filter((c) => c.passAll === 1).length;
  return {
    suite,
    repeat,
    cases,
    overall: {
      runs: outcomes.length,
      passed,
      passRate: outcomes.length ? passed / outcomes.length : 0,
      passHatK: cases.length ? casesPassedAll / cases.length : 0,
      cases: cases.length,
      casesPassedAll,
    },
    failures: outcomes.flatMap((o) =>
      o.checks
        .filter((c) => !c.pass)
        .map((c) => ({ id: o.id, repeat: o.repeat, runId: o.runId, check: c.check, detail: c.detail })),
    ),
    outcomes,
  };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const cost = (x: number | null) => (x === null ? 'n/a' : `$${x.toFixed(4)}`);

/** The scorecard as a plain-text table, then the failed checks. */
export function formatScorecard(card: Scorecard): string {
  const k = card.repeat;
  const header = ['case', 'pass', k > 1 ? `pass^${k}` : 'result', 'calls', 'tokens', 'cost', 'wall'];
  const rows = card.cases.map((c) => [
    c.id,
    `${c.passed}/${c.runs}`,
    c.passAll ? 'PASS' : 'FAIL',
    c.meanCalls.toFixed(1),
    String(Math.round(c.meanTokens)),
    cost(c.meanCostUsd),
    `${(c.meanWallMs / 1000).toFixed(1)}s`,
  ]);
  const o = card.overall;
  const totalCost = card.cases.some((c) => c.meanCostUsd === null)
    ? null
    : card.cases.reduce((a, c) => a + (c.meanCostUsd ?? 0) * c.runs, 0);
  rows.push([
    'overall',
    `${o.passed}/${o.runs} (${pct(o.passRate)})`,
    `${o.casesPassedAll}/${o.cases} (${pct(o.passHatK)})`,
    String(card.outcomes.reduce((a, x) => a + x.usage.modelCalls, 0)),
    String(card.outcomes.reduce((a, x) => a + x.usage.inputTokens + x.usage.outputTokens, 0)),
    cost(totalCost),
    `${(card.outcomes.reduce((a, x) => a + x.durationMs, 0) / 1000).toFixed(1)}s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const table = [
    `suite ${card.suite}${k > 1 ? ` (each case ${k} times)` : ''}`,
    line(header),
    rule,
    ...rows.slice(0, -1).map(line),
    rule,
    line(rows.at(-1)!),
  ];
  if (card.failures.length) {
    table.push('', 'failed checks:');
    for (const f of card.failures)
      table.push(`  ${f.id}${k > 1 ? ` #${f.repeat}` : ''} (run ${f.runId}): ${f.check}: ${f.detail}`);
  }
  return table.join('\n');
}
