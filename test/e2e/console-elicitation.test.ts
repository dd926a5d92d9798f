/**
 * An elicitation answered in the console (Chromium, playwright-core): a real MCP server (the fixture
 * server over Streamable HTTP) asks the human for a city during a tool call; the inbox shows its
 * message and a form built from its requested schema, refuses the form with the required field empty,
 * and the answer reaches the tool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/tools/http-server.ts';
import { chromiumPath, launchChromium, screenshot } from '../support/browser.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.ts';
import { startShippedParley, type ShippedParley } from '../support/server.ts';

const CHROMIUM = chromiumPath();
if (!CHROMIUM) console.log('console elicitation test skipped: no Chromium (apt-get install chromium; CI installs it)');

describe.skipIf(!CHROMIUM)('an elicitation in the console', () => {
  let fixture: FixtureHttpServer;
  let server: ShippedParley;
  let browser: Browser;
  let configDir: string;

  beforeAll(async () => {
    ensureBuilt();
    fixture = await startFixtureHttpServer();
    configDir = mkdtempSync(join(tmpdir(), 'parley-console-elicitation-'));
    const config = join(configDir, 'mcp_config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { url: fixture.mcpUrl } } }));
    server = await startShippedParley({ PARLEY_MCP_CONFIG: config });
    browser = await launchChromium(CHROMIUM!);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('is answered from a form built from its requested schema, checked before sending', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(12_000);
    await page.goto(server.url + '/');
    await page.getByLabel('Question').fill('Ask the user which city to use [[steps:1]] [[tool:fx/ask_city {}]]');
    await page.getByLabel('Mode').selectOption('orchestrate');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.react-flow [data-state="waiting"]').waitFor();

    await page.getByRole('link', { name: /Approvals/ }).click();
    await page.getByRole('option').filter({ hasText: 'Which city should I use?' }).click();
    const detail = page.getByRole('region', { name: 'Request' });
    // The required field left empty is named in the page; nothing is sent.
    await detail.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => detail.getByRole('alert').textContent()).toMatch(/city/);
    expect(await page.getByRole('option').count()).toBe(1);

    await detail.getByLabel(/^city/).fill('Bergen');
    await screenshot(page, 'inbox-elicitation');
    await detail.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Answered');

    await page.getByRole('link', { name: 'Chat' }).click();
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 30_000 });
    await page.locator('.react-flow [data-state="succeeded"]').click();
    await expect.poll(() => page.locator('[data-tool-state="ok"]').textContent()).toContain('city: Bergen');
    expect(fixture.state.calls).toContain('ask_city');
    await page.close();
  });
});
