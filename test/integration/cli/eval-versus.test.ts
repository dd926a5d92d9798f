/**
 * `parley eval --versus direct` as a user runs it: bin/parley.js on the shipped evals/versus.yaml, its model
 * calls answered by a scripted model this test started (so its request log is readable here). Each case's
 * graph answer is compared with one bare call of the same model by the pairwise judge, in both orders; the
 * table, the JSON and the request log must all say so. A second suite shows a loss (a run that ends without
 * an answer) and a comparison that cannot be made (every call fails), which exits 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel, type ScriptedRequestLog } from '../../../src/scripted-model/index.ts';
import type { CaseOutcome } from '../../../src/eval/run-suite.ts';
import type { VersusScorecard } from '../../../src/eval/versus-card.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { NO_HOME } from '../../support/home.ts';
import { ROOT, runParley } from '../../support/parley-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'parley-eval-versus-'));
let scripted: ScriptedModel;

beforeAll(async () => {
  ensureBuilt();
  scripted = await startScriptedModel({ promptCheck: true });
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await scripted?.close();
  rmSync(dir, { recursive: true, force: true });
});

function parley(args: string[], extra: Record<string, string> = {}) {
  return runParley(args, {
    PARLEY_HOME: NO_HOME,
    PARLEY_DATA_DIR: join(dir, 'data'),
    // "Your model": an OpenAI-compatible endpoint, here the scripted model of this test.
    PARLEY_MODEL_BASE_URL: `${scripted.url}/v1`,
    PARLEY_MODEL_API_KEY: 'test',
    PARLEY_MODEL: 'scripted',
    ...extra,
  });
}

type Message = { role: string; content: string };
const messagesOf = (r: ScriptedRequestLog) => (r.body as { messages: Message[] }).messages;
const blockOf = (text: string, name: string) =>
  new RegExp(`<parley:${name}>([\\s\\S]*?)</parley:${name}>`).exec(text)?.[1];

describe('parley eval --versus direct', () => {
  it('runs evals/versus.yaml: win / tie / loss per case and overall, each side’s calls and tokens, both orders judged', async () => {
    scripted.requests.length = 0;
    const out = join(dir, 'versus.json');
    const p = parley(['eval', 'evals/versus.yaml', '--versus', 'direct', '--out', out]);
    expect(await p.exit, p.err()).toBe(0);
    const text = p.out();
    const card = JSON.parse(readFileSync(out, 'utf8')) as VersusScorecard;
    const v = card.versus;
    expect(v.cases.length).toBeGreaterThanOrEqual(12);

    // The table: one row per case with its result and what each order preferred, then overall.
    expect(text).toMatch(/^versus direct: the graph against one direct call of the same model/m);
    expect(text).toMatch(
      /^case +result +graph as A +direct as A +graph calls +graph tokens +direct calls +direct tokens$/m,
    );
    for (const c of v.cases) {
      expect(['win', 'tie', 'loss']).toContain(c.result);
      expect(text).toMatch(
        new RegExp(`^${c.id} +${c.result} +(graph|direct|tie) +(graph|direct|tie) +\\d+ +\\d+ +1 +\\d+$`, 'm'),
      );
    }
    const o = v.overall;
    expect(o.wins + o.ties + o.losses).toBe(v.cases.length);
    expect(o).toMatchObject({ compared: v.cases.length, errors: 0, wonOrTied: o.wins + o.ties });
    expect(text).toMatch(
      new RegExp(
        `^overall +${o.wins}W ${o.ties}T ${o.losses}L +${o.spend.graph.calls} +${o.spend.graph.tokens} +${v.cases.length} +${o.spend.direct.tokens}$`,
        'm',
      ),
    );
    expect(text).toContain(`won or tied: ${o.wonOrTied} of ${v.cases.length} (`);
    expect(text).toMatch(
      /^the graph spent \d+ calls, \d+ tokens, \$0\.0000; the direct calls 1\d calls, \d+ tokens, \$0\.0000; the pairwise judge \d+ calls/m,
    );
    // Each side's spend: one direct call per case, two judge calls per case, the graph's own calls as the scorecard counts them.
    expect(o.spend.direct.calls).toBe(v.cases.length);
    expect(o.spend.judge.calls).toBe(2 * v.cases.length);
    expect(o.spend.graph.calls).toBe(card.overall.spend.runs.calls);
    expect(o.spend.graph.calls).toBeGreaterThan(o.spend.direct.calls);

    // What the scripted judge decides: identical answers (the router answered a greeting in one call, like the
    // bare call) tie in both orders; the file the graph wrote wins (the criteria quote what only its answer says);
    // answers that cover as much get the scripted judge's first-position preference, which the two orders cancel.
    const byId = (id: string) => v.cases.find((c) => c.id === id)!;
    expect(byId('greeting')).toMatchObject({ result: 'tie', orders: ['tie', 'tie'] });
    expect(byId('checklist-file')).toMatchObject({ result: 'win', orders: ['graph', 'graph'] });
    expect(byId('restore-runbook')).toMatchObject({ result: 'tie', orders: ['graph', 'direct'] });

    // The request log: per case one bare call (no system prompt, no tools) and two judge calls with the answers swapped.
    const outcomes = card.outcomes as (CaseOutcome & { versus: NonNullable<CaseOutcome['versus']> })[];
    const judged = scripted.requests.filter((r) => r.schemaName === 'pairwise_judgement');
    expect(judged).toHaveLength(2 * outcomes.length);
    const cases = (await import('yaml')).parse(readFileSync(join(ROOT, 'evals/versus.yaml'), 'utf8')) as {
      cases: { id: string; query: string; thread?: string[] }[];
    };
    for (const o of outcomes) {
      const query = cases.cases.find((c) => c.id === o.id)!.query;
      const mine = judged.filter((r) => r.runId === o.runId);
      expect(mine, o.id).toHaveLength(2);
      const pairs = mine.map((r) => [blockOf(r.lastUserMessage, 'answer_a'), blockOf(r.lastUserMessage, 'answer_b')]);
      const graph = o.versus.graphAnswer;
      const direct = o.versus.direct.answer;
      expect(pairs, o.id).toContainEqual([graph, direct]);
      expect(pairs, o.id).toContainEqual([direct, graph]);
      for (const r of mine) {
        expect(r.role).toBe('judge');
        const system = messagesOf(r)[0]!;
        expect(system.role).toBe('system');
        // Blind: nothing in the judge's prompt says which answer came from where.
        expect(system.content).not.toMatch(/[Gg]raph|[Oo]rchestrat|[Dd]irect call|Parley|[Ss]pecialist/);
        if (!query.includes('{workspace}')) expect(blockOf(r.lastUserMessage, 'query')).toBe(query);
      }
    }
    // The bare calls: the thread's earlier turns as the graph answered them, then the query; nothing added.
    const bareCalls = scripted.requests.filter((r) => r.endpoint === 'chat.completions' && r.runId === undefined);
    expect(bareCalls).toHaveLength(outcomes.length);
    for (const r of bareCalls) {
      expect(r.role).toBe('default');
      expect(r.tools).toEqual([]);
      expect(messagesOf(r).every((m) => m.role !== 'system')).toBe(true);
    }
    const followup = bareCalls.find(
      (r) => r.lastUserMessage === 'And how does it help a database recover after a crash?',
    );
    const wal = outcomes.find((o) => o.id === 'followup-wal')!;
    expect(messagesOf(followup!).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messagesOf(followup!)[0]!.content).toBe('What is a write-ahead log?');
    expect(messagesOf(followup!)[1]!.content.length).toBeGreaterThan(0);
    expect(wal.versus.direct.answer).toContain('recover after a crash');
    // The follow-up's judge reads the earlier question too.
    const walJudge = judged.find((r) => r.runId === wal.runId)!;
    expect(blockOf(walJudge.lastUserMessage, 'earlier_turns')).toBe(JSON.stringify(['What is a write-ahead log?']));
    // The file case's rubric reaches the judge as its criteria.
    const file = outcomes.find((o) => o.id === 'checklist-file')!;
    expect(blockOf(judged.find((r) => r.runId === file.runId)!.lastUserMessage, 'criteria')).toContain(
      '"successfully wrote"',
    );
  }, 400_000);

  it('counts a run that ends without an answer as a loss, and exits 1 when a comparison cannot be made', async () => {
    const suite = join(dir, 'edges.yaml');
    writeFileSync(
      suite,
      [
        'name: versus-edges',
        'cases:',
        '  - id: answered',
        '    query: Explain what a B-tree is',
        '    mode: direct',
        '  - id: deadlocked-team',
        '    query: Plan the team offsite agenda [[deadlock]]',
        '    mode: dynamic',
        '    checks: [{ status: failed }]',
        '  - id: every-call-fails',
        '    query: Explain what a heap is [[fault:500]]',
        '    mode: direct',
        '    checks: [{ status: failed }]',
      ].join('\n'),
    );
    const out = join(dir, 'edges.json');
    const p = parley(['eval', suite, '--versus', 'direct', '--out', out], {
      PARLEY_MODEL_MAX_RETRIES: '0',
      PARLEY_MODEL_RETRY_BASE_MS: '5',
    });
    expect(await p.exit, p.err()).toBe(1);
    const card = JSON.parse(readFileSync(out, 'utf8')) as VersusScorecard;
    // Every check passed: the exit code is the comparison that could not be made.
    expect(card.failures).toEqual([]);
    const byId = (id: string) => card.versus.cases.find((c) => c.id === id)!;
    expect(byId('answered')).toMatchObject({ result: 'tie', orders: ['tie', 'tie'] });
    expect(byId('deadlocked-team')).toMatchObject({ result: 'loss', orders: ['direct', 'direct'] });
    expect(byId('every-call-fails')).toMatchObject({ errors: 1, compared: 0, orders: [] });
    expect(card.versus.overall).toMatchObject({
      compared: 2,
      wins: 0,
      ties: 1,
      losses: 1,
      errors: 1,
      wonOrTiedRate: 0.5,
    });
    const text = p.out();
    expect(text).toMatch(/^deadlocked-team +loss +direct +direct /m);
    expect(text).toMatch(/^every-call-fails +error +- +- /m);
    expect(text).toContain('won or tied: 1 of 2 (50%): 0 wins, 1 tie, 1 loss; 1 not compared');
    expect(text).toMatch(
      /^where the graph lost \(the judge, graph as A\):\n {2}deadlocked-team \(run [\w-]+\): Answer B covers more/m,
    );
    expect(text).toMatch(/^not compared:\n {2}every-call-fails \(run [\w-]+\): the direct call failed: /m);
  }, 240_000);

  it('refuses --versus with anything but "direct", and beside --compare', async () => {
    const other = parley(['eval', 'evals/versus.yaml', '--versus', 'graph']);
    expect(await other.exit).toBe(2);
    expect(other.err()).toContain('--versus takes "direct": the graph against one direct call of the same model');
    const both = parley(['eval', 'evals/versus.yaml', '--versus', 'direct', '--compare', 'a.env', 'b.env']);
    expect(await both.exit).toBe(2);
    expect(both.err()).toContain('--versus direct measures one configuration');
  });
});
