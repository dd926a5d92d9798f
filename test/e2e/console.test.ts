/**
 * The console in a real browser (Chromium from Debian's package, driven by playwright-core) against the
 * whole server as shipped (the real filesystem MCP server, API keys on), as a person uses it: sign in,
 * ask a question whose step writes a file, watch the step wait in the graph, answer from the inbox
 * (accept with the keyboard, deny with feedback, edit the arguments in the schema form), see the file
 * and the answer; another key sees none of it. Screenshots of each view go to test-results/console/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium, screenshot } from '../support/browser.ts';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build.ts';
import { startShippedParley, writeFileQuery, type ShippedParley } from '../support/server.ts';

const KEY_A = 'console-key-alice';
const KEY_B = 'console-key-bob';
const KEY_ADMIN = 'console-key-operator';
const CHROMIUM = chromiumPath();
if (!CHROMIUM) console.log('console browser tests skipped: no Chromium (apt-get install chromium; CI installs it)');

describe.skipIf(!CHROMIUM)('the console in Chromium', () => {
  let server: ShippedParley;
  let browser: Browser;

  beforeAll(async () => {
    ensureBuilt(); // dist/console is what the server serves at /
    server = await startShippedParley({ PARLEY_API_KEYS: `${KEY_A},${KEY_B}`, PARLEY_ADMIN_KEYS: KEY_ADMIN });
    browser = await launchChromium(CHROMIUM!);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const workspaceFile = (name: string) => join(server.dataDir, 'workspace', name);

  async function openSignedIn(key: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Below the test's own timeout, so a missing element fails with its selector.
    page.setDefaultTimeout(12_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url + '/');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    expect(errors).toEqual([]);
    return page;
  }

  /** Asks in the chat; resolves with the run id once the run started. */
  async function ask(page: Page, question: string, mode = 'orchestrate'): Promise<string> {
    await page.getByLabel('Question').fill(question);
    await page.getByLabel('Mode').selectOption(mode);
    await page.getByRole('button', { name: 'Send' }).click();
    const detail = page.locator('.run-detail[data-run-id]');
    await detail.waitFor();
    return (await detail.getAttribute('data-run-id'))!;
  }

  async function openInbox(page: Page) {
    await page.getByRole('link', { name: /Approvals/ }).click();
    await page.getByRole('region', { name: 'Pending requests' }).waitFor();
  }

  async function backToChat(page: Page) {
    await page.getByRole('link', { name: 'Chat' }).click();
  }

  it('refuses a wrong key and signs in with a right one', async () => {
    const page = await browser.newPage();
    await page.goto(server.url + '/');
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted');
    await page.getByLabel('API key').fill(KEY_A);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    await page.close();
  });

  it('shows the step waiting, accepts from the inbox with the keyboard, and the file and answer arrive', async () => {
    const page = await openSignedIn(KEY_A);
    const runId = await ask(page, writeFileQuery(server.dataDir, 'accepted.txt', 'approved content'));
    // The graph shows the step waiting for a human, in words, and the nav counts the request.
    const waiting = page.locator('.react-flow [data-state="waiting"]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain('waiting for a human');
    await page.locator('.badge').waitFor();
    await screenshot(page, 'chat-waiting');
    expect(existsSync(workspaceFile('accepted.txt'))).toBe(false);

    await openInbox(page);
    const option = page.getByRole('option').filter({ hasText: 'filesystem/write_file' });
    await option.waitFor();
    await expect.poll(() => page.locator('.inbox-detail').textContent()).toContain(runId);
    await screenshot(page, 'inbox');
    await option.focus();
    await page.keyboard.press('a');
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Accepted');

    await backToChat(page);
    await page.locator(`.turn[data-run-id="${runId}"] .answer`).filter({ hasNotText: '…' }).waitFor();
    await expect
      .poll(() => page.locator(`.turn[data-run-id="${runId}"] .answer`).textContent(), { timeout: 20_000 })
      .toMatch(/Successfully wrote to .*accepted\.txt/);
    await page.locator('.react-flow [data-state="succeeded"]').waitFor();
    expect(readFileSync(workspaceFile('accepted.txt'), 'utf8')).toBe('approved content');
    // The step's lineage shows the tool call and its result.
    await page.locator('.react-flow [data-state="succeeded"]').click();
    await page.locator('[data-tool-state="ok"]').waitFor();
    expect(await page.locator('[data-tool-state="ok"]').textContent()).toContain('filesystem/write_file');
    await screenshot(page, 'chat-done');
    await page.close();
  });

  it('denies with feedback: the file is not written and the tool call shows denied', async () => {
    const page = await openSignedIn(KEY_A);
    const runId = await ask(page, writeFileQuery(server.dataDir, 'denied.txt', 'must not exist'));
    await page.locator('.react-flow [data-state="waiting"]').waitFor();
    await openInbox(page);
    await page.getByRole('option').filter({ hasText: 'filesystem/write_file' }).click();
    await page.getByLabel('Feedback for the agent').fill('not in this folder');
    await page.getByRole('button', { name: /Deny/ }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Denied');

    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 20_000 });
    await page.locator('.react-flow [data-step-id]').first().click();
    const denied = page.locator('[data-tool-state="denied"]');
    await denied.waitFor();
    expect(await denied.textContent()).toContain('not in this folder');
    expect(existsSync(workspaceFile('denied.txt'))).toBe(false);
    await screenshot(page, 'run-replay');
    await page.close();
  });

  it("edits the arguments in the tool's schema form, refusing an invalid edit before sending", async () => {
    const page = await openSignedIn(KEY_A);
    await ask(page, writeFileQuery(server.dataDir, 'original.txt', 'original'));
    await page.locator('.react-flow [data-state="waiting"]').waitFor();
    await openInbox(page);
    await page.getByRole('option').filter({ hasText: 'filesystem/write_file' }).click();
    await page.getByRole('button', { name: 'Edit arguments' }).click();
    const form = page.locator('.edit-form');
    // A required field left empty is refused in the page; nothing reaches the server.
    await form.getByLabel(/^path/).fill('');
    await form.getByRole('button', { name: 'Run with these arguments' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/path/);
    expect(await page.getByRole('option').count()).toBe(1);
    await screenshot(page, 'inbox-edit');

    await form.getByLabel(/^path/).fill(workspaceFile('edited.txt'));
    await form.getByLabel(/^content/).fill('edited by a human');
    await form.getByRole('button', { name: 'Run with these arguments' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Edited and accepted');
    await expect.poll(() => existsSync(workspaceFile('edited.txt')), { timeout: 20_000 }).toBe(true);
    expect(readFileSync(workspaceFile('edited.txt'), 'utf8')).toBe('edited by a human');
    expect(existsSync(workspaceFile('original.txt'))).toBe(false);
    await page.close();
  });

  it('stops a run waiting for a human from its page: the run ends cancelled and its request goes', async () => {
    const page = await openSignedIn(KEY_A);
    await ask(page, writeFileQuery(server.dataDir, 'stopped.txt', 'never'));
    await page.locator('.react-flow [data-state="waiting"]').waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-run-state="cancelled"]').waitFor();
    expect(await page.locator('.react-flow [data-state="cancelled"]').count()).toBe(1);
    await openInbox(page);
    await expect.poll(() => page.getByRole('option').filter({ hasText: 'stopped.txt' }).count()).toBe(0);
    expect(existsSync(workspaceFile('stopped.txt'))).toBe(false);
    await page.close();
  });

  it('shows a new request in the open inbox without a reload', async () => {
    const page = await openSignedIn(KEY_A);
    await openInbox(page);
    const before = await page.getByRole('option').count();
    // A run started elsewhere (plain SSE, another client of the same key) asks for approval.
    const abort = new AbortController();
    const started = fetch(`${server.url}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY_A}` },
      body: JSON.stringify({ query: writeFileQuery(server.dataDir, 'elsewhere.txt', 'x'), mode: 'orchestrate' }),
      signal: abort.signal,
    });
    await expect.poll(() => page.getByRole('option').count(), { timeout: 10_000 }).toBe(before + 1);
    abort.abort();
    await started.catch(() => undefined);
    await page.close();
  });

  it("another key sees none of the first key's runs, approvals or threads; an admin key sees both, by caller", async () => {
    const alice = await openSignedIn(KEY_A);
    const runId = await ask(alice, writeFileQuery(server.dataDir, 'private.txt', 'secret'));
    await alice.locator('.react-flow [data-state="waiting"]').waitFor();
    await alice.getByRole('link', { name: 'History' }).click();
    await alice.locator(`tr[data-run-id="${runId}"]`).waitFor();
    await screenshot(alice, 'history');

    const bob = await openSignedIn(KEY_B);
    await openInbox(bob);
    await bob.getByText('Nothing waits for you').waitFor();
    await bob.getByRole('link', { name: 'History' }).click();
    await bob.getByText('No runs match.').waitFor();
    expect(await bob.locator('tr[data-run-id]').count()).toBe(0);
    await bob.getByText('No conversations yet.').waitFor();
    // Alice's run by its id answers like an unknown one.
    await bob.goto(`${server.url}/#/runs/${runId}`);
    await bob.reload();
    await bob
      .getByText(/No run/)
      .first()
      .waitFor();
    expect(await bob.locator('.react-flow').count()).toBe(0);

    // Alice still has her request pending; answer it so the run ends.
    await openInbox(alice);
    await alice.getByRole('option').filter({ hasText: 'filesystem/write_file' }).first().click();
    await alice.getByRole('button', { name: /Deny/ }).click();
    await alice.close();

    // An admin key sees both callers' runs, each with its caller.
    await bob.getByRole('link', { name: 'Chat' }).click();
    const bobsRun = await ask(bob, 'What is a fjord?', 'direct');
    await bob.locator('[data-run-state="completed"]').waitFor();
    await bob.close();
    const admin = await openSignedIn(KEY_ADMIN);
    await admin.getByRole('link', { name: 'History' }).click();
    await admin.locator(`tr[data-run-id="${runId}"]`).waitFor();
    await admin.locator(`tr[data-run-id="${bobsRun}"]`).waitFor();
    await admin.getByRole('columnheader', { name: 'Caller' }).waitFor();
    const callerOf = async (id: string) => (await admin.locator(`tr[data-run-id="${id}"] td`).nth(4).textContent())!;
    expect(await callerOf(runId)).not.toBe(await callerOf(bobsRun));
    await admin.close();
  });

  it('draws a dynamic team: spawned agents under their manager, and their messages', async () => {
    const page = await openSignedIn(KEY_A);
    await ask(page, 'Compare the top 3 caching libraries [[spawn:3]] [[message:found a lead]]', 'dynamic');
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 30_000 });
    const nodes = page.locator('.react-flow [data-step-id]');
    // Polled: React Flow draws the edges once it has measured the nodes (a frame or more later under load).
    await expect.poll(() => nodes.count()).toBe(4);
    expect(await page.locator('.react-flow [data-step-id] .tag').filter({ hasText: 'manager' }).count()).toBe(1);
    // Dashed edges from the manager to each agent it spawned; the team's messages beside the graph.
    await expect.poll(() => page.locator('.react-flow .edge-spawned').count()).toBe(3);
    await expect.poll(() => page.locator('.messages').textContent()).toContain('found a lead');
    await screenshot(page, 'dynamic');
    await page.close();
  });

  it('shows a council run as the nodes it went through and its stages', async () => {
    const page = await openSignedIn(KEY_A);
    await ask(page, 'Should we adopt GraphQL for our public API?', 'council');
    await page.locator('[data-run-state="completed"]').waitFor({ timeout: 30_000 });
    await page.locator('[aria-label="Run path"] [data-node="council"][data-done="true"]').waitFor();
    const summary = await page.getByRole('region', { name: 'Run summary' }).textContent();
    for (const stage of ['advisors', 'reviews', 'verdict']) expect(summary).toContain(stage);
    await screenshot(page, 'council');
    await page.close();
  });

  it('lists specialists, tools and MCP servers with their state', async () => {
    const page = await openSignedIn(KEY_A);
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.locator('tr[data-server="filesystem"]').waitFor();
    expect(await page.locator('tr[data-server="filesystem"]').textContent()).toMatch(/closed/);
    await page.locator('tr[data-specialist]').first().waitFor();
    expect(await page.locator('tr[data-specialist]').count()).toBeGreaterThan(3);
    await page.locator('.tools code', { hasText: 'filesystem/write_file' }).waitFor();
    await screenshot(page, 'knowledge');
    // Reloading is for operators: a plain key is told so, in the page.
    await page.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('PARLEY_ADMIN_KEYS');
    await page.close();
  });
});
