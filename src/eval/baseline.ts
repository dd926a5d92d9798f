/**
 * `parley eval SUITE --baseline FILE` (docs/evals.md): this run's scorecard against an earlier one of
 * the same suite. A regression is a case that passed every repeat and now does not (or no longer ran),
 * the overall pass rate or pass^k down, or a case's mean calls, tokens or cost — the run's own, not the
 * judge's — up by more than the tolerance.
 */
import { readFileSync } from 'node:fs';
import { relativeChange } from './compare-cards.ts';
import { pct, table, type CaseScore, type Scorecard } from './scorecard.ts';

/** Calls, tokens and cost may grow this much (percent) before it counts as a regression. */
export const DEFAULT_TOLERANCE_PCT = 10;

export interface Regression {
  case: string;
  what: string;
  baseline: string;
  now: string;
  change: string;
}

export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** A scorecard JSON written by `parley eval --out` for `suite`; a clear error for anything else. */
export function loadBaseline(path: string, suite: string): Scorecard {
  let card: Partial<Scorecard> & { kind?: string };
  try {
    card = JSON.parse(readFileSync(path, 'utf8')) as typeof card;
  } catch (err) {
    const why = err instanceof SyntaxError ? 'not JSON' : ((err as NodeJS.ErrnoException).code ?? String(err));
    throw new BaselineError(`cannot read the baseline ${path}: ${why}`);
  }
  if (card.kind === 'compare')
    throw new BaselineError(`${path} is a --compare scorecard: give the JSON of one configuration's run`);
  if (typeof card.suite !== 'string' || !Array.isArray(card.cases) || typeof card.overall?.passRate !== 'number')
    throw new BaselineError(`${path} is not a scorecard written by parley eval (no suite, cases and overall)`);
  if (card.suite !== suite) throw new BaselineError(`${path} is a scorecard of suite "${card.suite}", not "${suite}"`);
  return card as Scorecard;
}

const figure = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

function caseRegressions(was: CaseScore, now: CaseScore | undefined, tolerancePct: number): Regression[] {
  if (!now) return [{ case: was.id, what: 'ran', baseline: 'yes', now: 'no', change: 'not in the suite any more' }];
  const out: Regression[] = [];
  if (was.passAll && !now.passAll)
    out.push({
      case: was.id,
      what: 'passed',
      baseline: `${was.passed}/${was.runs}`,
      now: `${now.passed}/${now.runs}`,
      change: now.passed ? 'now fails some repeats' : 'now fails',
    });
  const grew: [string, number | null, number | null][] = [
    ['calls', was.meanCalls, now.meanCalls],
    ['tokens', was.meanTokens, now.meanTokens],
    ['cost', was.meanCostUsd, now.meanCostUsd],
  ];
  for (const [what, x, y] of grew) {
    if (x === null || y === null || y <= x * (1 + tolerancePct / 100)) continue;
    // From 0, any growth is beyond a relative tolerance.
    out.push({ case: was.id, what, baseline: figure(x), now: figure(y), change: relativeChange(x, y) });
  }
  return out;
}

export function regressions(baseline: Scorecard, now: Scorecard, tolerancePct: number): Regression[] {
  const found = baseline.cases.flatMap((was) =>
    caseRegressions(
      was,
      now.cases.find((c) => c.id === was.id),
      tolerancePct,
    ),
  );
  const rates: [string, number, number][] = [
    ['pass rate', baseline.overall.passRate, now.overall.passRate],
    ['pass^k', baseline.overall.passHatK, now.overall.passHatK],
  ];
  for (const [what, x, y] of rates)
    if (y < x) found.push({ case: 'overall', what, baseline: pct(x), now: pct(y), change: `${pct(y - x)}` });
  return found;
}

/** One line saying what was compared, then the table of regressions (or that there is none). */
export function formatRegressions(path: string, tolerancePct: number, found: Regression[]): string {
  const head = `baseline ${path} (calls, tokens and cost may grow ${tolerancePct}%)`;
  if (!found.length) return `${head}: no regression`;
  return [
    `${head}: ${found.length} regression${found.length === 1 ? '' : 's'}`,
    ...table(
      ['case', 'what', 'baseline', 'now', 'change'],
      found.map((r) => [r.case, r.what, r.baseline, r.now, r.change]),
      0,
    ),
  ].join('\n');
}
