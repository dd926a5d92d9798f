/**
 * The scorecard of a suite run (docs/evals.md): per case its pass rate over the repeats, pass^k (every
 * repeat passed), mean calls, tokens, cost and wall time; overall the same; then each failed check
 * with what was found. As a table for the terminal and as JSON for tools.
 */
import type { CaseOutcome, JudgeUsage } from './run-suite.ts';

/** What some runs (or the judge's calls) spent in all: calls, input + output tokens, cost (null: unknown). */
export interface Spend {
  calls: number;
  tokens: number;
  costUsd: number | null;
}

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
  /** The judge's calls per run of this case, kept apart: meanCalls/meanTokens/meanCostUsd are the run's own. */
  judge: { meanCalls: number; meanTokens: number; meanCostUsd: number | null };
}

export interface Scorecard {
  suite: string;
  repeat: number;
  /** The configuration it ran under (`parley eval --compare`: the env file), when not the environment alone. */
  configuration?: string;
  cases: CaseScore[];
  overall: {
    runs: number;
    passed: number;
    passRate: number;
    passHatK: number;
    cases: number;
    casesPassedAll: number;
    /** Totals of every run: the runs' own, the judge's, and both (what the evaluation spent). */
    spend: { runs: Spend; judge: Spend; total: Spend };
    wallMs: number;
  };
  failures: { id: string; repeat: number; runId: string; check: string; detail: string }[];
  outcomes: CaseOutcome[];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);
/** The sum, or null when one is unknown (a model without a price). */
const sumCost = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : sum(xs as number[]));
const meanCost = (xs: (number | null)[]) => {
  const total = sumCost(xs);
  return total === null || !xs.length ? total : total / xs.length;
};
/** An outcome of a scorecard written before the judge was counted has no judgeUsage. */
const judgeOf = (o: CaseOutcome): JudgeUsage =>
  o.judgeUsage ?? { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

function spendOf(outcomes: CaseOutcome[]): Scorecard['overall']['spend'] {
  const runs: Spend = {
    calls: sum(outcomes.map((o) => o.usage.modelCalls)),
    tokens: sum(outcomes.map((o) => o.usage.inputTokens + o.usage.outputTokens)),
    costUsd: sumCost(outcomes.map((o) => o.usage.costUsd)),
  };
  const judges = outcomes.map(judgeOf);
  const judge: Spend = {
    calls: sum(judges.map((j) => j.calls)),
    tokens: sum(judges.map((j) => j.inputTokens + j.outputTokens)),
    costUsd: sumCost(judges.map((j) => j.costUsd)),
  };
  const total: Spend = {
    calls: runs.calls + judge.calls,
    tokens: runs.tokens + judge.tokens,
    costUsd: runs.costUsd === null || judge.costUsd === null ? null : runs.costUsd + judge.costUsd,
  };
  return { runs, judge, total };
}

export function scorecardOf(suite: string, repeat: number, outcomes: CaseOutcome[]): Scorecard {
  const ids = [...new Set(outcomes.map((o) => o.id))];
  const cases = ids.map((id): CaseScore => {
    const runs = outcomes.filter((o) => o.id === id);
    const passed = runs.filter((o) => o.pass).length;
    const judges = runs.map(judgeOf);
    return {
      id,
      runs: runs.length,
      passed,
      passRate: passed / runs.length,
      passAll: passed === runs.length ? 1 : 0,
      meanCalls: mean(runs.map((o) => o.usage.modelCalls)),
      meanTokens: mean(runs.map((o) => o.usage.inputTokens + o.usage.outputTokens)),
      meanCostUsd: meanCost(runs.map((o) => o.usage.costUsd)),
      meanWallMs: mean(runs.map((o) => o.durationMs)),
      judge: {
        meanCalls: mean(judges.map((j) => j.calls)),
        meanTokens: mean(judges.map((j) => j.inputTokens + j.outputTokens)),
        meanCostUsd: meanCost(judges.map((j) => j.costUsd)),
      },
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
      spend: spendOf(outcomes),
      wallMs: sum(outcomes.map((o) => o.durationMs)),
    },
    failures: outcomes.flatMap((o) =>
      o.checks
        .filter((c) => !c.pass)
        .map((c) => ({ id: o.id, repeat: o.repeat, runId: o.runId, check: c.check, detail: c.detail })),
    ),
    outcomes,
  };
}

export const pct = (x: number) => `${Math.round(x * 100)}%`;
export const money = (x: number | null) => (x === null ? 'n/a' : `$${x.toFixed(4)}`);
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
/** A judge column cell: "-" when the case has no judge check. */
const judgeCell = (calls: number, tokens: number) =>
  calls ? `${Number.isInteger(calls) ? calls : calls.toFixed(1)} (${Math.round(tokens)} tok)` : '-';

/** Rows as aligned columns, a rule under the header and above the last `footer` rows. */
export function table(header: string[], rows: string[][], footer = 1): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const body = rows.slice(0, rows.length - footer).map(line);
  const foot = rows.slice(rows.length - footer).map(line);
  return [line(header), rule, ...body, ...(footer ? [rule, ...foot] : [])];
}

/** "61 calls, 40211 tokens, $0.0000" */
export const spendLine = (s: Spend) =>
  `${s.calls} call${s.calls === 1 ? '' : 's'}, ${s.tokens} tokens, ${money(s.costUsd)}`;

/** The scorecard as a plain-text table, then what was spent and the failed checks. */
export function formatScorecard(card: Scorecard): string {
  const k = card.repeat;
  const header = ['case', 'pass', k > 1 ? `pass^${k}` : 'result', 'calls', 'tokens', 'cost', 'judge', 'wall'];
  const rows = card.cases.map((c) => [
    c.id,
    `${c.passed}/${c.runs}`,
    c.passAll ? 'PASS' : 'FAIL',
    c.meanCalls.toFixed(1),
    String(Math.round(c.meanTokens)),
    money(c.meanCostUsd),
    judgeCell(c.judge?.meanCalls ?? 0, c.judge?.meanTokens ?? 0),
    seconds(c.meanWallMs),
  ]);
  const o = card.overall;
  rows.push([
    'overall',
    `${o.passed}/${o.runs} (${pct(o.passRate)})`,
    `${o.casesPassedAll}/${o.cases} (${pct(o.passHatK)})`,
    String(o.spend.runs.calls),
    String(o.spend.runs.tokens),
    money(o.spend.runs.costUsd),
    judgeCell(o.spend.judge.calls, o.spend.judge.tokens),
    seconds(o.wallMs),
  ]);
  const lines = [
    `suite ${card.suite}${card.configuration ? ` on ${card.configuration}` : ''}${k > 1 ? ` (each case ${k} times)` : ''}`,
    ...table(header, rows),
    '',
    `spent: ${spendLine(o.spend.total)} (the runs ${spendLine(o.spend.runs)}; the judge ${spendLine(o.spend.judge)})`,
  ];
  if (card.failures.length) {
    lines.push('', 'failed checks:');
    for (const f of card.failures)
      lines.push(`  ${f.id}${k > 1 ? ` #${f.repeat}` : ''} (run ${f.runId}): ${f.check}: ${f.detail}`);
  }
  return lines.join('\n');
}
