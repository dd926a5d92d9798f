import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPriceCatalog, loadPriceCatalog } from '../../src/llm/prices.ts';

describe('price catalog', () => {
  const catalog = createPriceCatalog({
    'gpt-4o': { input: 2.5, output: 10, cached: 1.25 },
    cheap: { input: 1, output: 2 },
  });

  it('prices input, cached input and output tokens per million', () => {
    expect(
      catalog.cost('gpt-4o', { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedTokens: 400_000 }),
    ).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 10, 10);
  });

  it('charges cached tokens the input price when the catalog has no cached price', () => {
    expect(catalog.cost('cheap', { inputTokens: 1_000_000, outputTokens: 0, cachedTokens: 500_000 })).toBeCloseTo(
      1,
      10,
    );
  });

  it('matches dated snapshots and provider prefixes to the base model', () => {
    expect(catalog.priceOf('gpt-4o-2024-08-06')).toEqual({ input: 2.5, output: 10, cached: 1.25 });
    expect(catalog.priceOf('openai/gpt-4o')).not.toBeNull();
    expect(catalog.priceOf('GPT-4o')).not.toBeNull();
  });

  it('gives null for an unknown model, never zero', () => {
    expect(catalog.priceOf('gpt-4o-mini')).toBeNull();
    expect(catalog.cost('unknown', { inputTokens: 10, outputTokens: 10, cachedTokens: 0 })).toBeNull();
  });

  it('loads the shipped prices.json and rejects a broken file naming the setting', () => {
    expect(loadPriceCatalog('prices.json').priceOf('gpt-4o-mini')).not.toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ models: { x: { input: -1, output: 1 } } }));
    expect(() => loadPriceCatalog(bad)).toThrow(/PARLEY_PRICES_FILE=.*models\.x\.input/);
    expect(() => loadPriceCatalog(join(dir, 'missing.json'))).toThrow(/PARLEY_PRICES_FILE=.*no such file/);
  });
});
