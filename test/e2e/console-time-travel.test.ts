/**
 * Time travel and evals in the console, in Chromium against the whole server as shipped (API keys on):
 * a finished run's checkpoints on its timeline; "Fork from here" with an edited plan (a refused plan's
 * message shown in the form, then a good one) lands on the new run, which runs only the edited steps —
 * checked in the scripted model's request log, as the time-travel API tests do; the compare view of the
 * fork and its parent marks what differs; the eval page shows the scorecard of a real `parley eval`, and
 * of a real `parley eval --versus direct` (the graph against one direct call, per case and overall).
 * Screenshots go to docs/images/console-*.png (docs/console.md shows them).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEventOf } from '../../src/graph/run/events.ts';
import { chromiumPath, docsScreenshot, launchChromium } from '../support/browser.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.ts';
import { NO_HOME } from '../support/home.ts';
import { runParley } from '../support/parley-cli.ts';
import { ofType } from '../support/run-events.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../support/server.ts';
import { followToEnd, listCheckpoints, runToEnd } from '../support/time-travel.ts';

const KEY_A = 'tt-console-alice';
const KEY_B = 'tt-console-bob';
const CHROMIUM = chromiumPath();
if (!CHROMIUM) console.log('console browser tests skipped: no Chromium (apt-get install chromium; CI installs it)');

describe.skipIf(!CHROMIUM)('time travel and evals in the console', () => {
  let server: ShippedParley;
  let browser: Browser;
  const scratch = mkdtempSync(join(tmpdir(), 'parley-tt-console-'));

  beforeAll(async () => {
    ensureBuilt();
    server = await startShippedParley({ PARLEY_API_KEYS: `${KEY_A},${KEY_B}`, PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG });
    browser = await launchChromium(CHROMIUM!);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function openSignedIn(key: string, hash: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => {
      throw e;
    });
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    await page.goto(`${server.url}/${hash}`);
    return page;
  }

  const requestsOf = (runId: string) => server.parley.scripted!.requests.filter((r) => r.runId === runId);
  let parentId = '';
  let forkId = '';

  it('shows a run on its timeline and forks it after step 2 with an edited plan', async () => {
    const events = await runToEnd(server.parley, server.url, KEY_A, {
      query: 'Draft the release notes for version two [[steps:4]] [[chain]]',
      mode: 'orchestrate',
    });
    parentId = events[0]!.runId;
    const listed = await listCheckpoints(server.url, KEY_A, parentId);

    const page = await openSignedIn(KEY_A, `#/runs/${parentId}`);
    await page.locator('[data-run-state="completed"]').waitFor();
    const marks = page.locator('.timeline [data-checkpoint]');
    await expect.poll(() => marks.count()).toBe(listed.length);
    const afterTwo = listed.find((c) => c.kind === 'step' && c.stepsFinished === 2)!;
    await page.locator(`.timeline [data-checkpoint="${afterTwo.id}"]`).click();
    const detail = page.locator(`.checkpoint[data-checkpoint="${afterTwo.id}"]`);
    await detail.waitFor();
    expect(await detail.textContent()).toContain('after step s2 (succeeded)');
    expect(await detail.locator('tr[data-finished="succeeded"]').count()).toBe(2);
    expect(await detail.locator('tr[data-finished="no"]').count()).toBe(2);

    await page.getByRole('button', { name: 'Fork from here' }).click();
    const form = page.getByRole('form', { name: 'Fork' });
    await form.waitFor();
    expect(await form.getByRole('group', { name: /^Step / }).count()).toBe(4);
    // Step 3 gets a new objective; step 4 goes; a new step reads step 3's result.
    const s3 = form.getByRole('group', { name: 'Step 3' });
    await s3.getByLabel('Objective').fill('Turn {{s2.result}} into a short haiku (edited in the console)');
    await form.getByRole('group', { name: 'Step 4' }).getByRole('button', { name: 'Remove' }).click();
    await form.getByRole('button', { name: 'Add step' }).click();
    const added = form.getByRole('group', { name: 'Step 4' });
    expect(await added.getByLabel('Id').inputValue()).toBe('s4');
    await added.getByLabel('Id').fill('review');
    // First a reference to a step it does not depend on: the server refuses, the form says why.
    await added.getByLabel('Objective').fill('Review the haiku {{s3.result}}');
    await form.getByLabel('verifier').fill('gpt-5-mini');
    const runsBefore = server.parley.engine.activeRuns;
    await form.getByRole('button', { name: 'Start the fork' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^invalid plan: .*review/);
    expect(server.parley.engine.activeRuns).toBe(runsBefore);
    await docsScreenshot(page, 'fork-refused');

    await added.getByRole('checkbox', { name: 's3' }).check();
    expect(await form.getByRole('alert').count()).toBe(0); // the message was about the plan as sent
    await docsScreenshot(page, 'timeline-fork');
    await form.getByRole('button', { name: 'Start the fork' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.includes(parentId));
    forkId = decodeURIComponent(new URL(page.url()).hash.slice('#/runs/'.length));
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 30_000 });
    await page.getByText(`Forked from ${parentId}`).waitFor();

    // Through the API and the model's request log: s1, s2 carried; only s3 and the new step ran.
    const forked = await followToEnd(server.parley, server.url, KEY_A, forkId);
    const started = forked[0] as GraphEventOf<'run.started'>;
    expect(started.forkedFrom).toEqual({ runId: parentId, checkpoint: afterTwo.id });
    expect(ofType(forked, 'step.started').map((e) => e.stepId)).toEqual(['s3', 'review']);
    expect(ofType(forked, 'step.started')[0]!.objective).toContain('short haiku (edited in the console)');
    expect(
      ofType(forked, 'plan.ready')
        .at(-1)!
        .plan.steps.map((s) => s.id),
    ).toEqual(['s1', 's2', 's3', 'review']);
    expect(forked.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    const calls = requestsOf(forkId);
    expect(calls.filter((r) => r.role === 'specialist')).toHaveLength(2);
    expect(calls.filter((r) => r.role === 'verifier').map((r) => r.model)).toEqual(['gpt-5-mini']);
    expect(calls.some((r) => r.schemaName === 'route' || r.schemaName === 'graph_plan')).toBe(false);
    // The fork's own timeline holds the carried steps.
    await expect.poll(() => page.locator('.timeline [data-checkpoint]').count()).toBeGreaterThan(2);
    await page.close();
  });

  it('compares the fork with its parent, the differences marked; reachable from the run page', async () => {
    const page = await openSignedIn(KEY_A, `#/runs/${forkId}`);
    await page.getByRole('link', { name: 'Compare with its parent' }).click();
    const table = page.locator('.compare-table');
    await table.waitFor();
    expect(await table.locator('thead').textContent()).toContain(parentId);
    expect(await table.locator('thead').textContent()).toContain(forkId);
    const row = (field: string) => table.locator(`tr[data-field="${field}"]`);
    expect(await row('steps.s4').getAttribute('data-differs')).toBe('true');
    expect(await row('steps.review').getAttribute('data-differs')).toBe('true');
    // s1 was carried into the fork: the same outcome on both sides.
    expect(await row('steps.s1').getAttribute('data-differs')).toBe('false');
    expect(await row('steps.s1').textContent()).toContain('carried, succeeded');
    expect(await row('query').getAttribute('data-differs')).toBe('false');
    expect(await row('steps.s4').textContent()).toContain('≠ differs');
    expect(await table.locator('tr.differs').count()).toBeGreaterThan(3);
    await docsScreenshot(page, 'compare');

    // "Compare with…" from a run: pick the other one.
    await page.goto(`${server.url}/#/runs/${parentId}`);
    await page.getByRole('link', { name: 'Compare with…' }).click();
    await page.getByRole('region', { name: 'Compare with' }).getByRole('button').first().waitFor();
    await page.locator('.pick li', { hasText: forkId }).getByRole('button').click();
    await table.waitFor();
    expect(await table.locator('thead').textContent()).toMatch(new RegExp(`A: ${parentId}.*B: ${forkId}`));
    await page.close();

    // Another key: the runs are unknown to it.
    const bob = await openSignedIn(KEY_B, `#/compare/${parentId}/${forkId}`);
    await bob.getByText(`No run with id "${parentId}".`).waitFor();
    await bob.close();
  });

  /** `parley eval` of a suite written from `lines`, as KEY_A, on the server's data dir: its exit code and the scorecard id it kept. */
  async function evalAsAlice(name: string, lines: string[], flags: string[] = []) {
    const suite = join(scratch, `${name}.yaml`);
    writeFileSync(suite, lines.join('\n'));
    const p = runParley(['eval', suite, ...flags, '--out', join(scratch, `${name}.json`)], {
      PARLEY_HOME: NO_HOME,
      PARLEY_DATA_DIR: server.dataDir,
      PARLEY_API_KEYS: `${KEY_A},${KEY_B}`,
      PARLEY_API_KEY: KEY_A,
    });
    const code = await p.exit;
    const id = /scorecard (ev-\S+) kept for the console/.exec(p.err())?.[1];
    expect(id, p.err()).toBeDefined();
    return { code, id: id!, stderr: p.err() };
  }

  it('shows the scorecard a real `parley eval` kept, to the key that ran it only', async () => {
    const { code, id, stderr } = await evalAsAlice('console-suite', [
      'name: console-demo',
      'cases:',
      '  - id: explains-b-tree',
      '    query: Explain what a B-tree is',
      '    mode: direct',
      '    checks: [{ contains: B-tree }, { calls: 1 }]',
      '  - id: planned-notes',
      '    query: Draft the release notes [[steps:2]]',
      '    mode: orchestrate',
      '    checks: [{ score: 0.7 }]',
      '  - id: broken-on-purpose',
      '    query: Explain what a B-tree is',
      '    mode: direct',
      '    checks: [{ contains: no-such-text-anywhere }]',
    ]);
    expect(code, stderr).toBe(1);

    const page = await openSignedIn(KEY_A, '#/evals');
    const row = page.locator(`tr[data-scorecard="${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('console-demo');
    expect(await row.textContent()).toContain('2/3 (67%)');
    await docsScreenshot(page, 'evals');
    await row.getByRole('link').click();
    const card = page.getByRole('region', { name: 'Scorecard' });
    await card.waitFor();
    expect(await card.locator('tr[data-case]').count()).toBe(3);
    expect(await card.locator('tr[data-case="broken-on-purpose"]').getAttribute('data-pass')).toBe('false');
    expect(await card.locator('tr[data-case="planned-notes"]').getAttribute('data-pass')).toBe('true');
    expect(await card.locator('.failures').textContent()).toContain('no-such-text-anywhere');
    await docsScreenshot(page, 'scorecard');
    await page.close();

    const bob = await openSignedIn(KEY_B, '#/evals');
    await bob.getByText('No scorecard yet.').waitFor();
    await bob.goto(`${server.url}/#/evals/${id}`);
    await bob.getByText(`No scorecard with id "${id}".`).waitFor();
    await bob.close();
  }, 120_000);

  it('shows `parley eval --versus direct`: win / tie / loss per case and overall, each side’s calls and tokens', async () => {
    const { code, id, stderr } = await evalAsAlice(
      'versus-suite',
      [
        'name: versus-demo',
        'cases:',
        '  - id: greeting',
        '    query: Hello there',
        '  - id: planned-runbook',
        '    query: Write the runbook for restoring our database from a backup [[steps:2]]',
        '    mode: orchestrate',
        '  - id: deadlocked-team',
        '    query: Plan the team offsite agenda [[deadlock]]',
        '    mode: dynamic',
        '    checks: [{ status: failed }]',
      ],
      ['--versus', 'direct'],
    );
    expect(code, stderr).toBe(0);

    const page = await openSignedIn(KEY_A, '#/evals');
    const row = page.locator(`tr[data-scorecard="${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('0W 2T 1L (67% won or tied)');
    await row.getByRole('link').click();
    const versus = page.getByRole('region', { name: 'Versus direct' });
    await versus.waitFor();
    expect(await versus.textContent()).toContain('0 wins · 2 ties · 1 loss · won or tied 2/3 (67%)');
    expect(await versus.locator('tr[data-versus-case]').count()).toBe(3);
    expect(await versus.locator('tr[data-versus-case="greeting"]').getAttribute('data-result')).toBe('tie');
    expect(await versus.locator('tr[data-versus-case="deadlocked-team"]').getAttribute('data-result')).toBe('loss');
    const lost = versus.locator('tr[data-versus-case="deadlocked-team"] td');
    expect(await lost.allTextContents()).toEqual([
      'deadlocked-team',
      'loss',
      'direct',
      'direct',
      expect.any(String),
      expect.any(String),
      '1',
      expect.any(String),
    ]);
    expect(await versus.locator('.failures').textContent()).toContain(
      'deadlocked-team: the direct call won: Answer B covers more',
    );
    await docsScreenshot(page, 'scorecard-versus');
    await page.close();
  }, 120_000);
});
