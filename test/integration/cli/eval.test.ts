/**
 * `parley eval` as CI runs it: bin/parley.js on the starter suite against the built-in scripted model
 * (every case passes), and a suite with a check broken on purpose (a clear table, exit 1).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';
import { runParley } from '../../support/parley-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'parley-eval-test-'));

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parley(args: string[], extra: Record<string, string> = {}) {
  // A data dir of the test's own: parley eval keeps its scorecard there for the console.
  return runParley(args, {
    PARLEY_HOME: NO_HOME,
    PARLEY_DATA_DIR: join(dir, 'data'),
    PARLEY_SCRIPTED_PROMPT_CHECK: '1',
    ...extra,
  });
}

interface Spend {
  calls: number;
  tokens: number;
  costUsd: number | null;
}
interface Card {
  overall: {
    runs: number;
    passed: number;
    passHatK: number;
    cases: number;
    spend: { runs: Spend; judge: Spend; total: Spend };
  };
  cases: {
    id: string;
    runs: number;
    passed: number;
    meanCalls: number;
    judge: { meanCalls: number; meanTokens: number };
  }[];
  failures: { id: string; check: string; detail: string }[];
}

describe('parley eval', () => {
  it('runs the starter suite: every case passes, with a scorecard table and JSON', async () => {
    const out = join(dir, 'starter.json');
    const p = parley(['eval', 'evals/starter.yaml', '--out', out]);
    expect(await p.exit, p.err()).toBe(0);
    expect(p.out()).toMatch(/^overall +20\/20 \(100%\) +20\/20 \(100%\)/m);
    expect(p.out()).not.toContain('failed checks');
    // The starter suite's judge checks are counted apart from the runs' own calls.
    expect(p.out()).toMatch(/^spent: \d+ calls, \d+ tokens, \$0\.0000 \(the runs \d+ calls, .*; the judge 3 calls, /m);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Card;
    expect(card.overall).toMatchObject({ runs: 20, passed: 20, passHatK: 1, cases: 20 });
    expect(card.overall.spend.judge.calls).toBe(3);
    expect(card.overall.spend.total.calls).toBe(card.overall.spend.runs.calls + 3);
    // `calls` checks and the calls column are the run's own: the judged case's run made one call.
    const judged = card.cases.find((c) => c.id === 'judged-direct')!;
    expect(judged).toMatchObject({ meanCalls: 1, judge: { meanCalls: 1 } });
    expect(judged.judge.meanTokens).toBeGreaterThan(0);
    // Kept for the console under the data dir, as the local caller's (GET /api/evals serves it).
    const kept = /scorecard (ev-\d{13}-[0-9a-f]{8}) kept for the console/.exec(p.err())?.[1];
    expect(kept, p.err()).toBeDefined();
    const folder = join(dir, 'data', 'evals', 'anonymous');
    expect(readdirSync(folder).sort()).toEqual([`${kept}.json`, `${kept}.summary.json`]);
    expect(JSON.parse(readFileSync(join(folder, `${kept}.json`), 'utf8'))).toEqual(card);
  }, 240_000);

  it('fails with a clear table when a check is broken, and --repeat reports pass^k', async () => {
    const suite = join(dir, 'broken.yaml');
    writeFileSync(
      suite,
      [
        'name: broken',
        'cases:',
        '  - id: fine',
        '    query: Explain what a B-tree is',
        '    mode: direct',
        '    checks: [{ contains: B-tree }]',
        '  - id: broken-on-purpose',
        '    query: Explain what a B-tree is',
        '    mode: direct',
        '    checks:',
        '      - contains: no-such-text-anywhere',
        '      - judge: The answer mentions "red-black tree".',
        '      - calls: 0',
      ].join('\n'),
    );
    const out = join(dir, 'broken.json');
    const p = parley(['eval', suite, '--repeat', '3', '--out', out]);
    expect(await p.exit, p.err()).toBe(1);
    const table = p.out();
    expect(table).toContain('suite broken (each case 3 times)');
    expect(table).toMatch(/^case +pass +pass\^3 /m);
    expect(table).toMatch(/^fine +3\/3 +PASS/m);
    expect(table).toMatch(/^broken-on-purpose +0\/3 +FAIL/m);
    expect(table).toMatch(/^overall +3\/6 \(50%\) +1\/2 \(50%\)/m);
    expect(table).toContain('answer contains "no-such-text-anywhere": the answer: "');
    expect(table).toContain('judge scored 0: The answer does not mention "red-black tree".');
    expect(table).toContain('≤ 0 model calls: 1 calls');
    // Three judge calls (one per repeat) for the broken case; the fine case has none.
    expect(table).toMatch(/^broken-on-purpose +0\/3 +FAIL +1\.0 +\d+ +\$0\.0000 +1 \(\d+ tok\)/m);
    expect(table).toMatch(/^fine +3\/3 +PASS +1\.0 +\d+ +\$0\.0000 +- /m);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Card;
    expect(card.overall.passHatK).toBe(0.5);
    expect(card.failures.filter((f) => f.id === 'broken-on-purpose')).toHaveLength(9);
  }, 120_000);

  it('refuses a bad suite or command before running anything', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: bad\ncases:\n  - id: x\n    query: hi\n    checks: [{ contain: typo }]\n');
    // Independent commands: run at once (each is a start of bin/parley.js).
    const p = parley(['eval', bad]);
    const usage = parley(['eval', 'evals/starter.yaml', '--repeat', 'zero']);
    expect(await p.exit).toBe(2);
    expect(p.err()).toContain(`parley eval: ${bad}: cases.0.checks.0: not a check: write one of { contains },`);
    expect(await usage.exit).toBe(2);
    expect(usage.err()).toContain('--repeat needs a whole number');
  });

  // Two configurations that differ: B allows one verification round (so the case that needs a second one
  // fails) and prices its synthesizer (so B costs something).
  it('--compare runs the suite under two configurations and shows both columns and the differences', async () => {
    const suite = join(dir, 'compare.yaml');
    writeFileSync(
      suite,
      [
        'name: compare',
        'cases:',
        '  - id: direct',
        '    query: Explain what a B-tree is',
        '    mode: direct',
        '    checks: [{ contains: B-tree }]',
        '  - id: second-round',
        '    query: Write the onboarding guide for new engineers [[steps:2]] [[verify:0.5,0.9]]',
        '    mode: orchestrate',
        '    checks: [{ score: 0.9 }]',
      ].join('\n'),
    );
    const a = join(dir, 'a.env');
    const b = join(dir, 'b.env');
    writeFileSync(a, '# the defaults\nPARLEY_LOG_LEVEL=error\n');
    writeFileSync(b, 'PARLEY_LOG_LEVEL=error\nPARLEY_MAX_VERIFY_ROUNDS=1\nPARLEY_MODEL_SYNTHESIZER="gpt-5-mini"\n');
    const out = join(dir, 'compare.json');
    const p = parley(['eval', suite, '--compare', a, b, '--out', out]);
    expect(await p.exit, p.err()).toBe(1);
    const text = p.out();
    expect(text).toContain(`suite compare: A = ${a}, B = ${b}`);
    expect(text).toMatch(/^case +pass A +pass B +calls A +calls B +tokens A +tokens B +cost A +cost B /m);
    expect(text).toMatch(/^direct +1\/1 +1\/1 +1\.0 +1\.0 /m);
    expect(text).toMatch(/^second-round +1\/1 +0\/1 FAIL +8\.0 +5\.0 /m);
    expect(text).toMatch(/^overall +2\/2 \(100%\) +1\/2 \(50%\) /m);
    expect(text).toMatch(/^ +second-round +pass +1\/1 +0\/1 +passes on A, fails on B$/m);
    expect(text).toMatch(/^ +second-round +calls +8 +5 +-37%$/m);
    expect(text).toMatch(/^ +overall +cost +\$0\.0000 +\$0\.\d{4} +from 0$/m);
    expect(text).toContain('failed checks on B:');
    expect(text).toContain('second-round (run ');
    expect(text).not.toContain('failed checks on A');
    const json = JSON.parse(readFileSync(out, 'utf8')) as { kind: string; a: Card; b: Card; differences: unknown[] };
    expect(json.kind).toBe('compare');
    expect(json.a.overall.passed).toBe(2);
    expect(json.b.overall.passed).toBe(1);
    expect(json.b.overall.spend.runs.costUsd).toBeGreaterThan(0);
    expect(json.differences).toContainEqual({
      case: 'second-round',
      field: 'pass',
      a: '1/1',
      b: '0/1',
      change: 'passes on A, fails on B',
    });
    // The engines and their temporary data dirs are gone.
    expect(p.err()).toContain('parley eval: A 2 cases × 1');
    expect(p.err()).toContain('parley eval: B 2 cases × 1');
  }, 180_000);

  it('--baseline passes against its own output and fails with a table naming each regression', async () => {
    const suite = join(dir, 'baseline.yaml');
    const cases = (contains: string) =>
      [
        'name: baseline',
        'cases:',
        '  - id: steady',
        '    query: Define network latency in one paragraph',
        '    mode: direct',
        '    checks: [{ contains: latency }]',
        '  - id: will-break',
        '    query: Explain what a B-tree is',
        '    mode: direct',
        `    checks: [{ contains: ${contains} }]`,
      ].join('\n');
    writeFileSync(suite, cases('B-tree'));
    // The same suite changed to break: its own file, so it can run beside the unchanged one.
    const changed = join(dir, 'baseline-changed.yaml');
    writeFileSync(changed, cases('red-black'));
    const base = join(dir, 'base.json');
    // Calls and tokens up beyond the tolerance: the baseline ran with one verification round (the case
    // ends after its first, low-scored one), today's configuration allows the second.
    const grows = join(dir, 'grows.yaml');
    writeFileSync(
      grows,
      [
        'name: grows',
        'cases:',
        '  - id: verified-twice',
        '    query: Write the onboarding guide for new engineers [[steps:2]] [[verify:0.5,0.9]]',
        '    mode: orchestrate',
      ].join('\n'),
    );
    const cheap = join(dir, 'cheap.json');
    // Each `parley eval` runs on a temporary data dir of its own: the two baselines are made at once, and
    // the runs checked against them at once after.
    const first = parley(['eval', suite, '--out', base]);
    const one = parley(['eval', grows, '--out', cheap], { PARLEY_MAX_VERIFY_ROUNDS: '1' });
    expect(await first.exit, first.err()).toBe(0);
    expect(await one.exit, one.err()).toBe(0);

    const again = parley(['eval', suite, '--baseline', base, '--out', join(dir, 'again.json')]);
    const broken = parley(['eval', changed, '--baseline', base, '--tolerance', '5', '--out', join(dir, 'now.json')]);
    const costlier = parley(['eval', grows, '--baseline', cheap, '--out', join(dir, 'costlier.json')]);
    // A tolerance wide enough lets the same growth pass.
    const lenient = parley(['eval', grows, '--baseline', cheap, '--tolerance', '100', '--out', join(dir, 'l.json')]);
    const other = parley(['eval', 'evals/starter.yaml', '--baseline', base]);

    expect(await again.exit, again.err()).toBe(0);
    expect(again.out()).toContain(`baseline ${base} (calls, tokens and cost may grow 10%): no regression`);

    expect(await broken.exit, broken.err()).toBe(1);
    const text = broken.out().slice(broken.out().indexOf('\nbaseline '));
    expect(text).toContain(`baseline ${base} (calls, tokens and cost may grow 5%): 3 regressions`);
    expect(text).toMatch(/^case +what +baseline +now +change$/m);
    expect(text).toMatch(/^will-break +passed +1\/1 +0\/1 +now fails$/m);
    expect(text).toMatch(/^overall +pass rate +100% +50% +-50%$/m);
    expect(text).toMatch(/^overall +pass\^k +100% +50% +-50%$/m);
    expect(text).not.toMatch(/^steady /m);

    expect(await costlier.exit, costlier.err()).toBe(1);
    const grown = costlier.out().slice(costlier.out().indexOf('\nbaseline '));
    expect(grown).toContain(`baseline ${cheap} (calls, tokens and cost may grow 10%): 2 regressions`);
    expect(grown).toMatch(/^verified-twice +calls +5 +8 +\+60%$/m);
    expect(grown).toMatch(/^verified-twice +tokens +\d+ +\d+ +\+\d+%$/m);
    expect(await lenient.exit, lenient.err()).toBe(0);
    expect(lenient.out()).toContain('(calls, tokens and cost may grow 100%): no regression');

    expect(await other.exit).toBe(2);
    expect(other.err()).toContain(`parley eval: ${base} is a scorecard of suite "baseline", not "starter"`);
  }, 180_000);

  it('refuses a bad configuration file, baseline or flag combination before running anything', async () => {
    const typo = join(dir, 'typo.env');
    writeFileSync(typo, 'PARLEY_MODEL_PLANER=gpt-5-mini\n');
    const a = join(dir, 'ok.env');
    writeFileSync(a, 'PARLEY_LOG_LEVEL=error\n');
    const bad = join(dir, 'bad-value.env');
    writeFileSync(bad, 'PARLEY_MAX_VERIFY_ROUNDS=many\n');
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'nope');
    // Independent commands, each refused before anything runs: started at once.
    const p = parley(['eval', 'evals/starter.yaml', '--compare', a, typo]);
    const q = parley(['eval', 'evals/starter.yaml', '--compare', a, bad]);
    const r = parley(['eval', 'evals/starter.yaml', '--baseline', notJson]);
    const both = parley(['eval', 'evals/starter.yaml', '--compare', a, a, '--baseline', notJson]);
    const one = parley(['eval', 'evals/starter.yaml', '--compare', a]);
    expect(await p.exit).toBe(2);
    expect(p.err()).toContain(
      `parley eval: ${typo}: PARLEY_MODEL_PLANER is not a Parley setting (docs/configuration.md lists them)`,
    );
    expect(await q.exit).toBe(2);
    expect(q.err()).toContain(`parley eval: configuration error in ${bad}: PARLEY_MAX_VERIFY_ROUNDS="many" is invalid`);
    expect(await r.exit).toBe(2);
    expect(r.err()).toContain(`parley eval: cannot read the baseline ${notJson}: not JSON`);
    expect(await both.exit).toBe(2);
    expect(both.err()).toContain('--baseline checks one configuration');
    expect(await one.exit).toBe(2);
    expect(one.err()).toContain('--compare needs two configuration files');
  });
});
