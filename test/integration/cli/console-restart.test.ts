/**
 * The console across a crash (Chromium, playwright-core, `parley serve` as a real process): the page
 * shows a step waiting for a human, the server is killed (kill -9) and started again on the same data
 * dir and port, the human answers, and the same page — never reloaded — follows the run to its answer
 * with no error shown: its event stream reconnects with Last-Event-ID and the run resumes from its
 * checkpoint under the same ids.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchChromium } from '../../support/browser.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../../support/build.ts';
import { freePort } from '../../support/free-port.ts';
import { useServeProcesses } from '../../support/serve-process.ts';
import { writeFileQuery } from '../../support/server.ts';

const CHROMIUM = chromiumPath();
if (!CHROMIUM) console.log('console-restart.test.ts skipped: no Chromium (apt-get install chromium; CI installs it)');
vi.setConfig({ testTimeout: 120_000 });

const { serve, tempDataDir } = useServeProcesses('parley-console-restart');

describe.skipIf(!CHROMIUM)('the console across kill -9', () => {
  let browser: Browser;
  beforeAll(async () => {
    ensureBuilt();
    browser = await launchChromium(CHROMIUM!);
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  it('keeps following a run waiting for a human through a crash and a restart, to its answer', async () => {
    const dataDir = tempDataDir();
    const port = String(await freePort());
    const first = await serve(dataDir, { PARLEY_PORT: port });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(20_000);
    await page.goto(`${first.url}/`);
    await page.getByLabel('Question').fill(writeFileQuery(dataDir, 'crash.txt', 'written after the crash'));
    await page.getByLabel('Mode').selectOption('orchestrate');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.react-flow [data-state="waiting"]').waitFor();

    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    const second = await serve(dataDir, { PARLEY_PORT: port });
    expect(second.url).toBe(first.url);

    // The request waits again under its id; the human answers it from the inbox of the same page.
    await page.getByRole('link', { name: /Approvals/ }).click();
    const request = page.getByRole('option').filter({ hasText: 'filesystem/write_file' });
    await request.click();
    await page.getByRole('button', { name: /Accept/ }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Accepted');
    await page.getByRole('link', { name: 'Chat' }).click();
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator('.turn .answer').last().textContent())
      .toMatch(/Successfully wrote to .*crash\.txt/);
    expect(await page.locator('.chat .error').count()).toBe(0);
    expect(existsSync(join(dataDir, 'workspace', 'crash.txt'))).toBe(true);
    expect(readFileSync(join(dataDir, 'workspace', 'crash.txt'), 'utf8')).toBe('written after the crash');
    await page.close();
  });
});
