/**
 * The console in a real browser (docs/console.md, docs/performance.md): `npm run bench:console`
 *
 * Against `parley serve` as users start it (the compiled build, the scripted model, no MCP servers),
 * in Debian's Chromium driven by playwright-core:
 *   1. first paint: a cold page load of `/` (new browser context each time, so nothing is cached) until
 *      first contentful paint and until the console's navigation is on screen; --loads times.
 *   2. a live run of 50 steps and ~2,000 events (`[[steps:50]]`, every model call after --latency ms)
 *      asked from the chat and drawn as it runs: frame gaps (requestAnimationFrame deltas) and long
 *      tasks (over 50 ms) while it streams, and the time from Send to the graph showing it completed.
 *   3. the same run replayed: `#/runs/<id>` loaded cold until all 50 steps are drawn done.
 * Plus the initial bundle (what index.html loads before the first paint), gzipped.
 * Options: --loads 10, --latency 20.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { initialAssets } from '../bin/build-console.js';
import { CONSOLE_DIR } from '../src/console/routes.ts';
import { chromiumPath, launchChromium } from '../test/support/browser.ts';
import { serveProcess } from '../test/support/serve-one.ts';
import { EMPTY_MCP_CONFIG } from '../test/support/server.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: { loads: { type: 'string', default: '10' }, latency: { type: 'string', default: '20' } },
});
const loads = Number(values.loads);

const executable = chromiumPath();
if (!executable) {
  console.log('bench:console skipped: no Chromium (apt-get install chromium)');
  process.exit(0);
}

/**
 * Installed before any page script: records frame gaps, long tasks and when the navigation appears.
 * Plain text, not a function: tsx would compile a function with helpers the page does not have.
 */
const PROBE = `
  window.__probe = { frames: [], longTasks: [] };
  let last = performance.now();
  const tick = (now) => { window.__probe.frames.push(now - last); last = now; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__probe.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
  new MutationObserver((_, observer) => {
    if (document.querySelector('nav[aria-label="Views"]')) { window.__probe.navAt = performance.now(); observer.disconnect(); }
  }).observe(document, { childList: true, subtree: true });
`;

interface Probe {
  frames: number[];
  longTasks: number[];
  navAt?: number;
  fcp?: number;
}

const probe = (page: Page): Promise<Probe> =>
  page.evaluate(`({ ...window.__probe, fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime })`);

const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(1)} ms`);
const gzipSize = (asset: string) => statSync(join(CONSOLE_DIR, `${asset}.gz`)).size;

const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-console-'));
const server = await serveProcess(dataDir, {
  PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  PARLEY_SCRIPTED_LATENCY_MS: values.latency,
});
const browser = await launchChromium(executable);
try {
  const initial = initialAssets(readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8'));
  const initialBytes = initial.reduce((sum, asset) => sum + gzipSize(asset), 0);

  // 1. Cold loads.
  const fcps: number[] = [];
  const navs: number[] = [];
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript({ content: PROBE });
    await page.goto(`${server.url}/`);
    await page.locator('nav[aria-label="Views"]').waitFor();
    const p = await probe(page);
    if (p.fcp !== undefined) fcps.push(p.fcp);
    if (p.navAt !== undefined) navs.push(p.navAt);
    await context.close();
  }

  // 2. A live 50-step run from the chat.
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  await page.addInitScript({ content: PROBE });
  await page.goto(`${server.url}/`);
  await page.getByLabel('Question').fill('Survey every part of the system [[steps:50]]');
  await page.getByLabel('Mode').selectOption('orchestrate');
  await page.evaluate('window.__probe.frames.length = 0; window.__probe.longTasks.length = 0');
  const sentAt = Date.now();
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('[data-run-state="completed"]').waitFor();
  const liveMs = Date.now() - sentAt;
  const live = await probe(page);
  const runId = (await page.locator('.run-detail[data-run-id]').getAttribute('data-run-id'))!;
  const drawn = await page.locator('.react-flow [data-state="succeeded"]').count();
  const events = (await (
    await fetch(`${server.url}/api/runs/${runId}/events`, { headers: { accept: 'application/json' } })
  ).json()) as unknown[];
  await context.close();

  // 3. The same run replayed, cold.
  const replayContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const replay = await replayContext.newPage();
  replay.setDefaultTimeout(60_000);
  await replay.addInitScript({ content: PROBE });
  const replayStart = Date.now();
  await replay.goto(`${server.url}/#/runs/${runId}`);
  // The run's last event (run.finished) folded, and then every step drawn done (the page's CSP forbids
  // waitForFunction's eval, so a locator waits).
  await replay.locator('[data-run-state="completed"]').waitFor();
  while ((await replay.locator('.react-flow [data-state="succeeded"]').count()) < 50) await replay.waitForTimeout(10);
  const replayMs = Date.now() - replayStart;
  const replayed = await probe(replay);
  await replayContext.close();

  const gaps = live.frames.slice(1);
  console.log(
    `\nConsole in Chromium (${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}`,
  );
  console.log(`initial bundle: ${(initialBytes / 1024).toFixed(1)} KB gzipped (${initial.join(', ')}); budget 300 KB`);
  console.log(
    `cold load of / (${loads}x): first contentful paint median ${ms(percentile(fcps, 50))}, max ${ms(Math.max(...fcps))}`,
  );
  console.log(
    `                       navigation on screen median ${ms(percentile(navs, 50))}, max ${ms(Math.max(...navs))}`,
  );
  console.log(
    `live run: ${events.length} events, ${drawn} steps drawn done, Send → completed on screen ${liveMs} ms (model L = ${values.latency} ms)`,
  );
  console.log(
    `  frames: ${gaps.length}, gap p50 ${ms(percentile(gaps, 50))}, p95 ${ms(percentile(gaps, 95))}, max ${ms(Math.max(...gaps))}; ` +
      `long tasks ${live.longTasks.length} (total ${ms(live.longTasks.reduce((a, b) => a + b, 0))}, max ${ms(Math.max(0, ...live.longTasks))})`,
  );
  console.log(
    `replay of the same run, cold: 50 steps drawn ${replayMs} ms after navigation; long tasks ${replayed.longTasks.length} (max ${ms(Math.max(0, ...replayed.longTasks))})`,
  );
} finally {
  await browser.close();
  server.child.kill('SIGTERM');
  await server.exit;
  rmSync(dataDir, { recursive: true, force: true });
}
