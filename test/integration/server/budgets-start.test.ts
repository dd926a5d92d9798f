/**
 * Budgets at the composition root (issue #12 §5): a role model without a price stops start-up with
 * a message naming it and the fix (PARLEY_FREE_MODELS is the opt-out for local models), and the
 * callers' window totals survive a restart on the same data dir.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { createParley, type Parley } from '../../../src/server.ts';
import { REPO_SPECIALISTS_DIR } from '../../support/engine.ts';
import { EMPTY_MCP_CONFIG } from '../../support/server.ts';
import { NO_HOME } from '../../support/home.ts';
import { PACKAGE_ROOT } from '../../../src/package-root.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const baseEnv = (dataDir = ':memory:') => ({
  PARLEY_HOME: NO_HOME,
  PARLEY_PORT: '0',
  PARLEY_DATA_DIR: dataDir,
  PARLEY_MCP_CONFIG: EMPTY_MCP_CONFIG,
  PARLEY_SKILLS_DIRS: REPO_SPECIALISTS_DIR,
  PARLEY_LOG_LEVEL: 'silent',
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('prices at start', () => {
  it('refuses to start with a role model that has no price, naming the model, its roles and the fix', async () => {
    // The README's Ollama example, without its PARLEY_FREE_MODELS line.
    const config = loadConfig({
      ...baseEnv(),
      PARLEY_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      PARLEY_MODEL: 'llama3.2',
      PARLEY_MODEL_VERIFIER: 'gpt-4o-mini',
    });
    const started = createParley(config, { telemetry: false });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(
      // The default catalog is the shipped one, named by its absolute path (docs/configuration.md, The Parley home).
      new RegExp(
        `no price for model "llama3\\.2" \\(roles default, router, .*\\) in the price catalog ${escape(JSON.stringify(join(PACKAGE_ROOT, 'prices.json')))}`,
      ),
    );
    await expect(started).rejects.toThrow(/PARLEY_PRICES_FILE.*PARLEY_FREE_MODELS/);
    await expect(started).rejects.not.toThrow(/gpt-4o-mini/);
  });

  it('starts with the model listed in PARLEY_FREE_MODELS (the README Ollama example), and the scripted model needs nothing', async () => {
    const ollama = await createParley(
      loadConfig({
        ...baseEnv(),
        PARLEY_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
        PARLEY_MODEL: 'llama3.2',
        PARLEY_FREE_MODELS: 'llama3.2',
      }),
      { telemetry: false, ingestAtStart: false },
    );
    cleanups.push(() => ollama.close());
    const scripted = await createParley(loadConfig(baseEnv()), { telemetry: false, ingestAtStart: false });
    cleanups.push(() => scripted.close());
    expect(scripted.config.model.roles.default.model).toBe('scripted');
  });
});

describe('caller totals survive a restart', () => {
  it("a caller's window spend is kept in the data dir and still blocks after createParley on the same dir", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-ledger-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // A few runs' worth: the routing call alone reads ≈ 600 tokens since the router explains every route.
    const env = { ...baseEnv(dir), PARLEY_CALLER_MAX_TOKENS: '2000' };
    const caller = { id: 'key-ledger' };
    const run = (p: Parley) => p.engine.start({ query: 'hello', caller, protocol: 'test' }).result;

    const first = await createParley(loadConfig(env), { telemetry: false });
    let spent = false;
    for (let i = 0; i < 20 && !spent; i++) spent = (await run(first)).status === 'blocked';
    expect(spent).toBe(true);
    await first.close();
    expect(existsSync(join(dir, 'budget-ledger.json'))).toBe(true);

    const second = await createParley(loadConfig(env), { telemetry: false });
    cleanups.push(() => second.close());
    const again = await run(second);
    expect(again.status).toBe('blocked');
    expect(again.error).toMatch(/^caller token budget: "key-ledger" has used \d+ of 2000 tokens in this window$/);
    // Another caller starts fresh.
    expect(
      (await second.engine.start({ query: 'hello', caller: { id: 'key-other' }, protocol: 'test' }).result).status,
    ).toBe('completed');
  });
});
