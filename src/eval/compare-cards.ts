/**
 * `parley eval --compare ENV_A ENV_B` (docs/evals.md): the scorecards of one suite under two
 * configurations as one table — both columns per case and overall — then what differs.
 */
import { money, pct, seconds, spendLine, table, type CaseScore, type Scorecard } from './scorecard.ts';

export interface CardDifference {
  /** A case id, or `overall`. */
  case: string;
  /** `pass`, `calls`, `tokens`, `cost`, `judge calls`, `passHatK`, `passRate`. */
  field: string;
  a: number | string | null;
  b: number | string | null;
  /** In words: "passes on A, fails on B", "+33%". */
  change: string;
}

export interface ScorecardComparison {
  kind: 'compare';
  suite: string;
  repeat: number;
  a: Scorecard;
  b: Scorecard;
  differences: CardDifference[];
}

/** "+33%", "-50%", or "new" when A had none. */
export function relativeChange(a: number, b: number): string {
  if (a === 0) return b === 0 ? '0%' : 'from 0';
  const change = Math.round(((b - a) / a) * 100);
  return `${change > 0 ? '+' : ''}${change}%`;
}

const round = (x: number) => Math.round(x * 100) / 100;

function caseDifferences(a: CaseScore | undefined, b: CaseScore | undefined, id: string): CardDifference[] {
  if (!a || !b) return [{ case: id, field: 'ran', a: a ? 'yes' : 'no', b: b ? 'yes' : 'no', change: 'in one only' }];
  const out: CardDifference[] = [];
  if (a.passed !== b.passed || a.runs !== b.runs) {
    const word = (c: CaseScore) => (c.passAll ? 'passes' : c.passed ? 'passes sometimes' : 'fails');
    out.push({
      case: id,
      field: 'pass',
      a: `${a.passed}/${a.runs}`,
      b: `${b.passed}/${b.runs}`,
      change: `${word(a)} on A, ${word(b)} on B`,
    });
  }
  const numbers: [string, number | null, number | null][] = [
    ['calls', a.meanCalls, b.meanCalls],
    ['tokens', a.meanTokens, b.meanTokens],
    ['cost', a.meanCostUsd, b.meanCostUsd],
    ['judge calls', a.judge?.meanCalls ?? 0, b.judge?.meanCalls ?? 0],
  ];
  for (const [field, x, y] of numbers) {
    if (x === y) continue;
    const change = x === null || y === null ? 'cost unknown on one' : relativeChange(x, y);
    out.push({ case: id, field, a: x === null ? null : round(x), b: y === null ? null : round(y), change });
  }
  return out;
}

export function compareScorecards(a: Scorecard, b: Scorecard): ScorecardComparison {
  const ids = [...new Set([...a.cases.map((c) => c.id), ...b.cases.map((c) => c.id)])];
  const byId = (card: Scorecard, id: string) => card.cases.find((c) => c.id === id);
  const differences = ids.flatMap((id) => caseDifferences(byId(a, id), byId(b, id), id));
  const overall: [string, number | null, number | null, (x: number) => string][] = [
    ['passRate', a.overall.passRate, b.overall.passRate, pct],
    ['passHatK', a.overall.passHatK, b.overall.passHatK, pct],
    ['calls', a.overall.spend.runs.calls, b.overall.spend.runs.calls, String],
    ['tokens', a.overall.spend.runs.tokens, b.overall.spend.runs.tokens, String],
    ['cost', a.overall.spend.runs.costUsd, b.overall.spend.runs.costUsd, money],
    ['judge calls', a.overall.spend.judge.calls, b.overall.spend.judge.calls, String],
  ];
  for (const [field, x, y, show] of overall) {
    if (x === y) continue;
    const change =
      x === null || y === null
        ? 'cost unknown on one'
        : field.startsWith('pass')
          ? `${show(x)} → ${show(y)}`
          : relativeChange(x, y);
    differences.push({ case: 'overall', field, a: x, b: y, change });
  }
  return { kind: 'compare', suite: a.suite, repeat: a.repeat, a, b, differences };
}

/** A difference's value as the table shows it: cost in dollars, rates in percent. */
function shown(field: string, value: CardDifference['a']): string {
  if (value === null) return 'n/a';
  if (typeof value === 'string') return value;
  if (field === 'cost') return money(value);
  return field.startsWith('pass') ? pct(value) : String(value);
}

/** Both configurations' columns per case and overall, then the differences (wall time is shown, not listed). */
export function formatComparison(cmp: ScorecardComparison): string {
  const { a, b } = cmp;
  const k = cmp.repeat;
  const header = ['case', 'pass A', 'pass B', 'calls A', 'calls B', 'tokens A', 'tokens B', 'cost A', 'cost B'];
  header.push('judge A', 'judge B', 'wall A', 'wall B');
  const ids = [...new Set([...a.cases.map((c) => c.id), ...b.cases.map((c) => c.id)])];
  const cell = (c: CaseScore | undefined, f: (c: CaseScore) => string) => (c ? f(c) : '-');
  const rows = ids.map((id) => {
    const [x, y] = [a.cases.find((c) => c.id === id), b.cases.find((c) => c.id === id)];
    const pass = (c: CaseScore) => `${c.passed}/${c.runs}${c.passAll ? '' : ' FAIL'}`;
    const calls = (c: CaseScore) => c.meanCalls.toFixed(1);
    const tokens = (c: CaseScore) => String(Math.round(c.meanTokens));
    const cost = (c: CaseScore) => money(c.meanCostUsd);
    const judge = (c: CaseScore) => (c.judge?.meanCalls ? c.judge.meanCalls.toFixed(1) : '-');
    const wall = (c: CaseScore) => seconds(c.meanWallMs);
    return [id, ...[pass, calls, tokens, cost, judge, wall].flatMap((f) => [cell(x, f), cell(y, f)])];
  });
  const passCell = (c: Scorecard) =>
    k > 1
      ? `${c.overall.casesPassedAll}/${c.overall.cases} pass^${k} (${pct(c.overall.passHatK)})`
      : `${c.overall.passed}/${c.overall.runs} (${pct(c.overall.passRate)})`;
  const [sa, sb] = [a.overall.spend, b.overall.spend];
  rows.push([
    'overall',
    passCell(a),
    passCell(b),
    String(sa.runs.calls),
    String(sb.runs.calls),
    String(sa.runs.tokens),
    String(sb.runs.tokens),
    money(sa.runs.costUsd),
    money(sb.runs.costUsd),
    String(sa.judge.calls || '-'),
    String(sb.judge.calls || '-'),
    seconds(a.overall.wallMs),
    seconds(b.overall.wallMs),
  ]);
  const lines = [
    `suite ${cmp.suite}${k > 1 ? ` (each case ${k} times)` : ''}: A = ${a.configuration}, B = ${b.configuration}`,
    ...table(header, rows),
    '',
    `spent on A: ${spendLine(sa.total)} (the judge ${spendLine(sa.judge)})`,
    `spent on B: ${spendLine(sb.total)} (the judge ${spendLine(sb.judge)})`,
    '',
  ];
  if (!cmp.differences.length) lines.push('no differences (besides wall time)');
  else {
    lines.push('differences (B against A):');
    lines.push(
      ...table(
        ['case', 'what', 'A', 'B', 'change'],
        cmp.differences.map((d) => [d.case, d.field, shown(d.field, d.a), shown(d.field, d.b), d.change]),
        0,
      ).map((l) => `  ${l}`),
    );
  }
  for (const [name, card] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (!card.failures.length) continue;
    lines.push('', `failed checks on ${name}:`);
    for (const f of card.failures)
      lines.push(`  ${f.id}${k > 1 ? ` #${f.repeat}` : ''} (run ${f.runId}): ${f.check}: ${f.detail}`);
  }
  return lines.join('\n');
}
