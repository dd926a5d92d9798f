/**
 * A finished fork whose event log is no longer retained (PARLEY_RUN_RETENTION_MS), opened in the console
 * (Chromium against the whole server as shipped): the run page is drawn from its record (GET /api/runs/:id),
 * which names its parent (issue 44 §7), so the page still says what it was forked from and links the
 * parent and the comparison; the history lists it as a fork of its parent.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.ts';
import { postJson } from '../support/protocols/sse-read.ts';
import { EMPTY_MCP_CONFIG, startShippedParley, type ShippedParley } from '../support/server.ts';
import { bearer, followToEnd, listCheckpoints, runToEnd } from '../support/time-travel.ts';

const KEY = 'fork-record-console';
const RETENTION_MS = 4_000;
const CHROMIUM = chromiumPath();
if (!CHROMIUM) console.log('console browser tests skipped: no Chromium (apt-get install chromium; CI installs it)');

describe.skipIf(!CHROMIUM)("a finished fork's page drawn from its record", () => {
  let server: ShippedParley;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuilt();
    server = await startShippedParley({
      PARLEY_API_KEYS: KEY,
      PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
      PARLEY_RUN_RETENTION_MS: String(RETENTION_MS),
    });
    browser = await launchChromium(CHROMIUM!);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('says what it was forked from, and the history lists it as a fork', async () => {
    const query = 'Draft the release notes for version two [[steps:2]] [[chain]]';
    const parentId = (await runToEnd(server.parley, server.url, KEY, { query, mode: 'orchestrate' }))[0]!.runId;
    const afterOne = (await listCheckpoints(server.url, KEY, parentId)).find((c) => c.stepsFinished === 1)!;
    const forked = await postJson(`${server.url}/api/runs/${parentId}/fork`, { checkpoint: afterOne.id }, bearer(KEY));
    expect(forked.status).toBe(201);
    const forkId = ((await forked.json()) as { runId: string }).runId;
    const events = await followToEnd(server.parley, server.url, KEY, forkId);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    // The fork's event log expires; its record stays.
    await expect
      .poll(async () => (await fetch(`${server.url}/api/runs/${forkId}/events`, { headers: bearer(KEY) })).status, {
        timeout: RETENTION_MS * 5,
        interval: 500,
      })
      .toBe(404);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => {
      throw e;
    });
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    await page.goto(`${server.url}/#/runs/${forkId}`);
    await page.locator('[data-run-state="completed"]').waitFor();
    await page.getByText(`Forked from ${parentId} at ${afterOne.id}`).waitFor();
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(query);
    expect(await page.getByRole('link', { name: 'Compare with its parent' }).getAttribute('href')).toBe(
      `#/compare/${parentId}/${forkId}`,
    );

    await page.goto(`${server.url}/#/history`);
    const row = page.locator(`tr[data-run-id="${forkId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain(`fork of ${parentId}`);
    expect(await page.locator(`tr[data-run-id="${parentId}"]`).textContent()).not.toContain('fork of');
    await page.close();
  });
});
