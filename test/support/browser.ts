/**
 * Chromium from Debian's `chromium` package, driven by playwright-core (no browser download): for the
 * console tests and the console benchmark. `chromiumPath()` is undefined on a machine without it, and
 * the caller skips with a line saying so (CI always has it: .ci/run installs it).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

export function chromiumPath(): string | undefined {
  const fromEnv = process.env.PARLEY_CHROMIUM;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Flags for a headless browser in a container: no sandbox (root), no GPU, nothing phoning home. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: FLAGS });
}

/** Where screenshots go (git-ignored; linked from docs/console.md). */
export const SCREENSHOT_DIR = join(import.meta.dirname, '../../test-results/console');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Where the screenshots docs/console.md shows in the repository go (committed: docs/images/console-*.png). */
export const DOCS_IMAGE_DIR = join(import.meta.dirname, '../../docs/images');

/** A screenshot kept in docs/images/ (the whole page, so a long form or table shows entirely). */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(DOCS_IMAGE_DIR, { recursive: true });
  await page.screenshot({ path: join(DOCS_IMAGE_DIR, `console-${name}.png`), fullPage: true });
}
