/**
 * `parley eval SUITE.yaml [--repeat K] [--out FILE]` (docs/evals.md): runs an evaluation suite in this
 * process on a fresh temporary data dir (so no earlier run or proven team of yours changes a result,
 * and the suite's files land in a workspace of its own), prints the scorecard and writes it as JSON.
 * Exit 0 when every case passed every repeat, 1 when one did not, 2 for a bad command or suite.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';

export const EVAL_USAGE = 'parley eval SUITE.yaml [--repeat K] [--out FILE]';

export function parseEvalArgs(args: string[]): { suite: string; repeat: number; out?: string } | { error: string } {
  const rest = [...args];
  const take = (flag: string): string | undefined | null => {
    const at = rest.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at < 0) return undefined;
    const inline = rest[at]!.startsWith(`${flag}=`);
    const value = inline ? rest[at]!.slice(flag.length + 1) : rest[at + 1];
    rest.splice(at, inline ? 1 : 2);
    return value && !value.startsWith('--') ? value : null;
  };
  const repeat = take('--repeat');
  const out = take('--out');
  if (repeat === null || (repeat !== undefined && !/^[1-9]\d{0,2}$/.test(repeat)))
    return { error: `--repeat needs a whole number from 1 to 999 (usage: ${EVAL_USAGE})` };
  if (out === null) return { error: `--out needs a file name (usage: ${EVAL_USAGE})` };
  if (rest.length !== 1 || rest[0]!.startsWith('--')) return { error: `give one suite file (usage: ${EVAL_USAGE})` };
  return { suite: rest[0]!, repeat: repeat ? Number(repeat) : 1, ...(out ? { out } : {}) };
}

export async function evalCommand(args: string[]): Promise<number> {
  const parsed = parseEvalArgs(args);
  if ('error' in parsed) {
    process.stderr.write(`parley eval: ${parsed.error}\n`);
    return 2;
  }
  const [{ loadSuite, SuiteError }, { runSuite }, { formatScorecard, scorecardOf }] = await Promise.all([
    import('../graph/eval/suite.ts'),
    import('../graph/eval/run-suite.ts'),
    import('../graph/eval/scorecard.ts'),
  ]);
  let suite;
  try {
    suite = loadSuite(parsed.suite);
  } catch (err) {
    if (!(err instanceof SuiteError)) throw err;
    process.stderr.write(`parley eval: ${err.message}\n`);
    return 2;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-eval-'));
  try {
    let config, yours;
    try {
      // Yours: the data dir the scorecard is kept under for the console (keep-scorecard.ts).
      yours = loadConfig(process.env);
      config = loadConfig({ ...process.env, PARLEY_DATA_DIR: dataDir, PARLEY_PORT: '0' });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`parley eval: configuration error: ${err.message}\n`);
      return 2;
    }
    const { createParley } = await import('../server.ts');
    const parley = await createParley(config, { recoverRuns: false });
    try {
      process.stderr.write(
        `parley eval: ${suite.cases.length} cases × ${parsed.repeat}, ${suite.concurrency} at once, approvals: ${suite.approvals}\n`,
      );
      const outcomes = await runSuite(
        suite,
        {
          engine: parley.engine,
          approvals: parley.approvals,
          model: parley.model,
          workspace: join(dataDir, 'workspace'),
        },
        {
          repeat: parsed.repeat,
          onOutcome: (o) =>
            process.stderr.write(`  ${o.pass ? 'pass' : 'FAIL'} ${o.id}${parsed.repeat > 1 ? ` #${o.repeat}` : ''}\n`),
        },
      );
      const card = scorecardOf(suite.name, parsed.repeat, outcomes);
      process.stdout.write(formatScorecard(card) + '\n');
      const out = parsed.out ?? `${suite.name}.scorecard.json`;
      writeFileSync(out, JSON.stringify(card, null, 2) + '\n');
      process.stderr.write(`parley eval: scorecard written to ${out}\n`);
      const { keepForConsole } = await import('./keep-scorecard.ts');
      process.stderr.write(`parley eval: ${keepForConsole(yours, process.env.PARLEY_API_KEY, card)}\n`);
      return card.failures.length === 0 ? 0 : 1;
    } finally {
      await parley.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
