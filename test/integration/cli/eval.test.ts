/**
 * `parley eval` as CI runs it: bin/parley.js on the starter suite against the built-in scripted model
 * (every case passes), and a suite with a check broken on purpose (a clear table, exit 1).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';

const BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'parley-eval-test-'));

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parley(args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('PARLEY_') && !k.startsWith('OPENAI_')),
  );
  const child = spawn(process.execPath, [BIN, ...args], {
    // A data dir of the test's own: parley eval keeps its scorecard there for the console.
    env: { ...env, PARLEY_HOME: NO_HOME, PARLEY_DATA_DIR: join(dir, 'data'), PARLEY_SCRIPTED_PROMPT_CHECK: '1' },
    cwd: ROOT,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { exit, out: () => stdout, err: () => stderr };
}

interface Card {
  overall: { runs: number; passed: number; passHatK: number; cases: number };
  cases: { id: string; runs: number; passed: number }[];
  failures: { id: string; check: string; detail: string }[];
}

describe('parley eval', () => {
  it('runs the starter suite: every case passes, with a scorecard table and JSON', async () => {
    const out = join(dir, 'starter.json');
    const p = parley(['eval', 'evals/starter.yaml', '--out', out]);
    expect(await p.exit, p.err()).toBe(0);
    expect(p.out()).toMatch(/^overall +20\/20 \(100%\) +20\/20 \(100%\)/m);
    expect(p.out()).not.toContain('failed checks');
    const card = JSON.parse(readFileSync(out, 'utf8')) as Card;
    expect(card.overall).toMatchObject({ runs: 20, passed: 20, passHatK: 1, cases: 20 });
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
    const card = JSON.parse(readFileSync(out, 'utf8')) as Card;
    expect(card.overall.passHatK).toBe(0.5);
    expect(card.failures.filter((f) => f.id === 'broken-on-purpose')).toHaveLength(9);
  }, 120_000);

  it('refuses a bad suite or command before running anything', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: bad\ncases:\n  - id: x\n    query: hi\n    checks: [{ contain: typo }]\n');
    const p = parley(['eval', bad]);
    expect(await p.exit).toBe(2);
    expect(p.err()).toContain(`parley eval: ${bad}: cases.0.checks.0: not a check: write one of { contains },`);
    const usage = parley(['eval', 'evals/starter.yaml', '--repeat', 'zero']);
    expect(await usage.exit).toBe(2);
    expect(usage.err()).toContain('--repeat needs a whole number');
  });
});
