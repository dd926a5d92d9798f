/**
 * The versus section of a scorecard (`parley eval --versus direct`, docs/evals.md): per case the graph's
 * wins, ties and losses against one direct call, each side's mean calls and tokens; overall the counts,
 * the share won or tied and what each side and the pairwise judge spent. As a table and as JSON
 * (`versus` beside the scorecard's own fields).
 */
import type { CaseOutcome } from './run-suite.ts';
import { pct, spendLine, table, type Scorecard, type Spend } from './scorecard.ts';
import type { CallsUsage, Preference, VersusResult } from './versus.ts';
import type { VersusOverall } from '../store/scorecards/files.ts';

export interface SideMeans {
  meanCalls: number;
  meanTokens: number;
  /** null when a model has no price. */
  meanCostUsd: number | null;
}

export interface VersusCaseScore {
  id: string;
  /** Comparisons made (one per repeat whose direct call and both judge calls answered). */
  compared: number;
  wins: number;
  ties: number;
  losses: number;
  /** Repeats with no result (a direct or judge call failed). */
  errors: number;
  /** With one repeat: the result, and what each order preferred (graph as A, then direct as A). */
  result?: VersusResult;
  orders?: (Preference | null)[];
  graph: SideMeans;
  direct: SideMeans;
  judge: SideMeans;
}

export interface VersusSummary {
  against: 'direct';
  cases: VersusCaseScore[];
  /** The counts (as the kept summary lists them) and what each side spent. */
  overall: VersusOverall & {
    /** The graph runs' own spend, the direct calls', and the pairwise judge's. */
    spend: { graph: Spend; direct: Spend; judge: Spend };
  };
  /** Where the graph lost, with the judge's reason (graph as A), and every comparison that could not be made. */
  notes: { id: string; repeat: number; runId: string; what: 'loss' | 'error'; detail: string }[];
}

/** A scorecard with the versus section (cli/eval.ts writes it so; the console reads it). */
export type VersusScorecard = Scorecard & { versus: VersusSummary };

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const tokensOf = (u: CallsUsage) => u.inputTokens + u.outputTokens;
const costSum = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : sum(xs as number[]));

function spendOf(usages: CallsUsage[]): Spend {
  return {
    calls: sum(usages.map((u) => u.calls)),
    tokens: sum(usages.map(tokensOf)),
    costUsd: costSum(usages.map((u) => u.costUsd)),
  };
}

function meansOf(usages: CallsUsage[]): SideMeans {
  const s = spendOf(usages);
  const n = usages.length || 1;
  return { meanCalls: s.calls / n, meanTokens: s.tokens / n, meanCostUsd: s.costUsd === null ? null : s.costUsd / n };
}

const graphUsage = (o: CaseOutcome): CallsUsage => ({
  calls: o.usage.modelCalls,
  inputTokens: o.usage.inputTokens,
  outputTokens: o.usage.outputTokens,
  costUsd: o.usage.costUsd,
});

export function versusSummaryOf(outcomes: CaseOutcome[]): VersusSummary {
  const compared = outcomes.filter((o) => o.versus);
  const ids = [...new Set(compared.map((o) => o.id))];
  const count = (os: CaseOutcome[], r: VersusResult) => os.filter((o) => o.versus!.result === r).length;
  const cases = ids.map((id): VersusCaseScore => {
    const runs = compared.filter((o) => o.id === id);
    const [wins, ties, losses] = [count(runs, 'win'), count(runs, 'tie'), count(runs, 'loss')];
    const only = runs.length === 1 ? runs[0]!.versus! : undefined;
    return {
      id,
      compared: wins + ties + losses,
      wins,
      ties,
      losses,
      errors: runs.length - wins - ties - losses,
      ...(only?.result ? { result: only.result } : {}),
      ...(only ? { orders: only.orders.map((v) => v.pick) } : {}),
      graph: meansOf(runs.map(graphUsage)),
      direct: meansOf(runs.map((o) => o.versus!.direct.usage)),
      judge: meansOf(runs.map((o) => o.versus!.judgeUsage)),
    };
  });
  const [wins, ties, losses] = [count(compared, 'win'), count(compared, 'tie'), count(compared, 'loss')];
  const made = wins + ties + losses;
  return {
    against: 'direct',
    cases,
    overall: {
      compared: made,
      wins,
      ties,
      losses,
      errors: compared.length - made,
      wonOrTied: wins + ties,
      wonOrTiedRate: made ? (wins + ties) / made : 0,
      spend: {
        graph: spendOf(compared.map(graphUsage)),
        direct: spendOf(compared.map((o) => o.versus!.direct.usage)),
        judge: spendOf(compared.map((o) => o.versus!.judgeUsage)),
      },
    },
    notes: compared.flatMap((o): VersusSummary['notes'] => {
      const v = o.versus!;
      const at = { id: o.id, repeat: o.repeat, runId: o.runId };
      if (v.error) return [{ ...at, what: 'error', detail: v.error }];
      if (v.result === 'loss') return [{ ...at, what: 'loss', detail: v.orders[0]?.reason ?? v.detail }];
      return [];
    }),
  };
}

const mean = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? 'es' : 's'}`;

/** What each order preferred: "-" when it was never asked (the direct call failed), "failed" when its call did. */
const orderCells = (orders: VersusCaseScore['orders']) =>
  orders?.length ? orders.map((p) => p ?? 'failed') : ['-', '-'];

/** The versus section as plain text: the table, the share won or tied, what each side spent, the losses' reasons. */
export function formatVersus(v: VersusSummary, repeat: number): string {
  const one = repeat === 1;
  const header = ['case', 'result', ...(one ? ['graph as A', 'direct as A'] : [])];
  header.push('graph calls', 'graph tokens', 'direct calls', 'direct tokens');
  const rows = v.cases.map((c) => [
    c.id,
    one ? (c.result ?? 'error') : `${c.wins}W ${c.ties}T ${c.losses}L${c.errors ? ` ${c.errors}E` : ''}`,
    ...(one ? orderCells(c.orders) : []),
    mean(c.graph.meanCalls),
    String(Math.round(c.graph.meanTokens)),
    mean(c.direct.meanCalls),
    String(Math.round(c.direct.meanTokens)),
  ]);
  const o = v.overall;
  rows.push([
    'overall',
    `${o.wins}W ${o.ties}T ${o.losses}L${o.errors ? ` ${o.errors}E` : ''}`,
    ...(one ? ['', ''] : []),
    String(o.spend.graph.calls),
    String(o.spend.graph.tokens),
    String(o.spend.direct.calls),
    String(o.spend.direct.tokens),
  ]);
  const lines = [
    'versus direct: the graph against one direct call of the same model, judged blind in both orders (a tie when they disagree)',
    ...table(header, rows),
    '',
    `won or tied: ${o.wonOrTied} of ${o.compared} (${pct(o.wonOrTiedRate)}): ${plural(o.wins, 'win')}, ${plural(o.ties, 'tie')}, ${plural(o.losses, 'loss')}${o.errors ? `; ${o.errors} not compared` : ''}`,
    `the graph spent ${spendLine(o.spend.graph)}; the direct calls ${spendLine(o.spend.direct)}; the pairwise judge ${spendLine(o.spend.judge)}`,
  ];
  const [lost, failed] = [v.notes.filter((n) => n.what === 'loss'), v.notes.filter((n) => n.what === 'error')];
  if (lost.length) {
    lines.push('', 'where the graph lost (the judge, graph as A):');
    for (const n of lost) lines.push(`  ${n.id}${one ? '' : ` #${n.repeat}`} (run ${n.runId}): ${n.detail}`);
  }
  if (failed.length) {
    lines.push('', 'not compared:');
    for (const n of failed) lines.push(`  ${n.id}${one ? '' : ` #${n.repeat}`} (run ${n.runId}): ${n.detail}`);
  }
  return lines.join('\n');
}
