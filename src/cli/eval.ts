/**
 * `parley eval SUITE.yaml [--repeat K] [--out FILE] [--compare ENV_A ENV_B | --baseline FILE [--tolerance PCT]] [--versus direct]`
 * (docs/evals.md): runs an evaluation suite in this process on a fresh temporary data dir (so no
 * earlier run or proven team of yours changes a result, and the suite's files land in a workspace of
 * its own), prints the scorecard and writes it as JSON. With --compare, the suite runs under each
 * configuration in turn — one engine at a time, each on its own data dir, closed before the next
 * starts — and one scorecard shows both. With --baseline, the scorecard is checked against an earlier one.
 * With --versus direct, each case is also answered by one direct call of the same model and a pairwise
 * judge compares the two blind, in both orders (eval/versus.ts).
 * Exit 0 when every case passed every repeat (with --baseline: when nothing regressed), 1 when not,
 * 2 for a bad command, suite, configuration or baseline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { Suite } from '../eval/suite.ts';
import type { Scorecard } from '../eval/scorecard.ts';
import type { VersusScorecard } from '../eval/versus-card.ts';
import { EnvFileError, readEnvFile } from './eval-env.ts';

export const EVAL_USAGE =
  'parley eval SUITE.yaml [--repeat K] [--out FILE] [--compare ENV_A ENV_B | --baseline FILE [--tolerance PCT]] [--versus direct]';

export interface EvalArgs {
  suite: string;
  repeat: number;
  out?: string;
  compare?: [string, string];
  baseline?: string;
  tolerancePct?: number;
  versus?: 'direct';
}

export function parseEvalArgs(args: string[]): EvalArgs | { error: string } {
  const rest = [...args];
  const take = (flag: string, count = 1): string[] | undefined | null => {
    const at = rest.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at < 0) return undefined;
    const inline = rest[at]!.startsWith(`${flag}=`);
    const values = inline ? [rest[at]!.slice(flag.length + 1)] : rest.slice(at + 1, at + 1 + count);
    rest.splice(at, inline ? 1 : 1 + values.length);
    return values.length === count && values.every((v) => v && !v.startsWith('--')) ? values : null;
  };
  const usage = ` (usage: ${EVAL_USAGE})`;
  const repeats = take('--repeat');
  const repeat = repeats === null ? null : repeats?.[0];
  const out = take('--out');
  const compare = take('--compare', 2);
  const baseline = take('--baseline');
  const tolerance = take('--tolerance');
  const versus = take('--versus');
  if (repeat === null || (repeat !== undefined && !/^[1-9]\d{0,2}$/.test(repeat)))
    return { error: `--repeat needs a whole number from 1 to 999${usage}` };
  if (out === null) return { error: `--out needs a file name${usage}` };
  if (compare === null) return { error: `--compare needs two configuration files, ENV_A and ENV_B${usage}` };
  if (baseline === null) return { error: `--baseline needs the JSON scorecard of an earlier run${usage}` };
  if (compare && baseline)
    return { error: `--baseline checks one configuration: run --compare and --baseline separately${usage}` };
  if (tolerance === null || (tolerance !== undefined && !/^\d{1,4}(\.\d+)?$/.test(tolerance[0]!)))
    return { error: `--tolerance needs a percentage, e.g. --tolerance 10${usage}` };
  if (tolerance && !baseline) return { error: `--tolerance applies to --baseline${usage}` };
  if (versus === null || (versus && versus[0] !== 'direct'))
    return { error: `--versus takes "direct": the graph against one direct call of the same model${usage}` };
  if (versus && compare)
    return { error: `--versus direct measures one configuration: run --compare and --versus separately${usage}` };
  if (rest.length !== 1 || rest[0]!.startsWith('--')) return { error: `give one suite file${usage}` };
  return {
    suite: rest[0]!,
    repeat: repeat ? Number(repeat) : 1,
    ...(out ? { out: out[0]! } : {}),
    ...(compare ? { compare: [compare[0]!, compare[1]!] as [string, string] } : {}),
    ...(baseline ? { baseline: baseline[0]! } : {}),
    ...(tolerance ? { tolerancePct: Number(tolerance[0]) } : {}),
    ...(versus ? { versus: 'direct' as const } : {}),
  };
}

/** One configuration to run the suite under: its settings over the environment, on its own temporary data dir. */
interface Configuration {
  label: string;
  config: Config;
  dataDir: string;
}

function configure(label: string, vars: Record<string, string>): Configuration {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-eval-'));
  try {
    return {
      label,
      dataDir,
      config: loadConfig({ ...process.env, ...vars, PARLEY_DATA_DIR: dataDir, PARLEY_PORT: '0' }),
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** The suite under one configuration: an engine started for it, closed when the suite is done. */
async function runUnder(
  c: Configuration,
  suite: Suite,
  repeat: number,
  tag: string,
  versus?: 'direct',
): Promise<Scorecard | VersusScorecard> {
  const [{ runSuite }, { scorecardOf }, { versusSummaryOf }, { createParley }] = await Promise.all([
    import('../eval/run-suite.ts'),
    import('../eval/scorecard.ts'),
    import('../eval/versus-card.ts'),
    import('../server.ts'),
  ]);
  const parley = await createParley(c.config, { recoverRuns: false });
  try {
    process.stderr.write(
      `parley eval: ${tag}${suite.cases.length} cases × ${repeat}, ${suite.concurrency} at once, approvals: ${suite.approvals}${versus ? ', versus one direct call' : ''}\n`,
    );
    const outcomes = await runSuite(
      suite,
      {
        engine: parley.engine,
        approvals: parley.approvals,
        model: parley.model,
        workspace: join(c.dataDir, 'workspace'),
        timeZone: c.config.engine.timeZone,
      },
      {
        repeat,
        ...(versus ? { versus } : {}),
        onOutcome: (o) =>
          process.stderr.write(
            `  ${tag}${o.pass ? 'pass' : 'FAIL'} ${o.id}${repeat > 1 ? ` #${o.repeat}` : ''}${o.versus ? ` (versus direct: ${o.versus.result ?? 'not compared'})` : ''}\n`,
          ),
      },
    );
    const card = { ...scorecardOf(suite.name, repeat, outcomes), ...(c.label ? { configuration: c.label } : {}) };
    return versus ? { ...card, versus: versusSummaryOf(outcomes) } : card;
  } finally {
    await parley.close();
  }
}

const isVersus = (card: Scorecard | VersusScorecard): card is VersusScorecard => 'versus' in card;

function fail(message: string): number {
  process.stderr.write(`parley eval: ${message}\n`);
  return 2;
}

export async function evalCommand(args: string[]): Promise<number> {
  const parsed = parseEvalArgs(args);
  if ('error' in parsed) return fail(parsed.error);
  const [{ loadSuite, SuiteError }, { formatScorecard }, baselines, compares] = await Promise.all([
    import('../eval/suite.ts'),
    import('../eval/scorecard.ts'),
    import('../eval/baseline.ts'),
    import('../eval/compare-cards.ts'),
  ]);
  // Everything that can be wrong with the command is found before anything runs.
  let suite: Suite;
  let baseline: Scorecard | undefined;
  let settings: [string, Record<string, string>][];
  try {
    suite = loadSuite(parsed.suite);
    if (parsed.baseline) baseline = baselines.loadBaseline(parsed.baseline, suite.name);
    settings = parsed.compare ? parsed.compare.map((path) => [path, readEnvFile(path)]) : [['', {}]];
  } catch (err) {
    if (err instanceof SuiteError || err instanceof baselines.BaselineError || err instanceof EnvFileError)
      return fail(err.message);
    throw err;
  }
  let yours: Config;
  try {
    yours = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return fail(`configuration error: ${err.message}`);
  }
  const configurations: Configuration[] = [];
  // Ctrl-C: the MCP servers a configuration started get the terminal's SIGINT too; the data dirs are ours to remove.
  const interrupted = () => {
    for (const c of configurations) rmSync(c.dataDir, { recursive: true, force: true });
    process.stderr.write('parley eval: interrupted; the temporary data dirs are removed\n');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    for (const [label, vars] of settings) {
      try {
        configurations.push(configure(label, vars));
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        return fail(`configuration error${label ? ` in ${label}` : ''}: ${err.message}`);
      }
    }
    const cards: Scorecard[] = [];
    for (const [i, c] of configurations.entries())
      cards.push(
        await runUnder(c, suite, parsed.repeat, configurations.length > 1 ? `${'AB'[i]} ` : '', parsed.versus),
      );
    const write = (json: unknown, fallback: string) => {
      const out = parsed.out ?? fallback;
      writeFileSync(out, JSON.stringify(json, null, 2) + '\n');
      process.stderr.write(`parley eval: scorecard written to ${out}\n`);
    };
    // Each scorecard is also kept under your own data dir for the console's Evals page (keep-scorecard.ts).
    const { keepForConsole } = await import('./keep-scorecard.ts');
    for (const card of cards)
      process.stderr.write(`parley eval: ${keepForConsole(yours, process.env.PARLEY_API_KEY, card)}\n`);
    if (cards.length === 2) {
      const comparison = compares.compareScorecards(cards[0]!, cards[1]!);
      process.stdout.write(compares.formatComparison(comparison) + '\n');
      write(comparison, `${suite.name}.compare.json`);
      return cards.every((card) => card.failures.length === 0) ? 0 : 1;
    }
    const card = cards[0]!;
    process.stdout.write(formatScorecard(card) + '\n');
    // A comparison that could not be made (a direct or judge call failed) leaves the measure incomplete: exit 1.
    let complete = true;
    if (isVersus(card)) {
      const { formatVersus } = await import('../eval/versus-card.ts');
      process.stdout.write('\n' + formatVersus(card.versus, card.repeat) + '\n');
      complete = card.versus.overall.errors === 0;
    }
    write(card, `${suite.name}.scorecard.json`);
    if (!baseline || !parsed.baseline) return card.failures.length === 0 && complete ? 0 : 1;
    const tolerance = parsed.tolerancePct ?? baselines.DEFAULT_TOLERANCE_PCT;
    const found = baselines.regressions(baseline, card, tolerance);
    process.stdout.write('\n' + baselines.formatRegressions(parsed.baseline, tolerance, found) + '\n');
    return found.length === 0 && complete ? 0 : 1;
  } finally {
    process.off('SIGINT', interrupted);
    for (const c of configurations) rmSync(c.dataDir, { recursive: true, force: true });
  }
}
