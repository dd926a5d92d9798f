/**
 * The price catalog: USD per million tokens per model (input, output, cached input). A model that is
 * not in it has an unknown cost (null), never zero, so budgets and reports do not undercount.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import { PACKAGE_ROOT } from '../package-root.ts';

const price = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Price of cached input tokens; when absent they cost the input price. */
  cached: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof price>;

const catalogFile = z.object({ models: z.record(z.string(), price) });

export interface PriceCatalog {
  /** The price of a model, matching dated snapshots (gpt-4o-2024-08-06) to their base name. */
  priceOf(model: string): ModelPrice | null;
  /** Cost in USD of a call's tokens, null when the model has no price. inputTokens includes cachedTokens. */
  cost(model: string, tokens: { inputTokens: number; outputTokens: number; cachedTokens: number }): number | null;
}

export function createPriceCatalog(models: Record<string, ModelPrice>): PriceCatalog {
  const table = new Map(Object.entries(models).map(([k, v]) => [k.toLowerCase(), v]));
  // Every model call looks its model up two or three times (reservation, usage): remember the
  // answer per name (a handful of names in practice; bounded in case a server invents many).
  const known = new Map<string, ModelPrice | null>();
  const priceOf = (model: string): ModelPrice | null => {
    let price = known.get(model);
    if (price === undefined) {
      if (known.size >= 1000) known.clear();
      known.set(model, (price = lookup(model)));
    }
    return price;
  };
  const lookup = (model: string): ModelPrice | null => {
    const name = model.toLowerCase();
    const bare = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name; // "openai/gpt-4o" routers
    for (const candidate of [name, bare, bare.replace(/-\d{4}-\d{2}-\d{2}$/, ''), bare.replace(/-\d{4}$/, '')]) {
      const hit = table.get(candidate);
      if (hit) return hit;
    }
    return null;
  };
  return {
    priceOf,
    cost(model, t) {
      const p = priceOf(model);
      if (!p) return null;
      const cached = Math.min(t.cachedTokens, t.inputTokens);
      return (
        ((t.inputTokens - cached) * p.input + cached * (p.cached ?? p.input) + t.outputTokens * p.output) / 1_000_000
      );
    },
  };
}

/**
 * Loads the catalog; a relative path is tried from the working directory, then from the package root.
 * `freeModels` (PARLEY_FREE_MODELS) are added at a price of 0 unless the file prices them.
 */
export function loadPriceCatalog(file: string, freeModels: string[] = []): PriceCatalog {
  const candidates = isAbsolute(file) ? [file] : [resolve(file), resolve(PACKAGE_ROOT, file)];
  const path = candidates.find((p) => existsSync(p));
  if (!path) throw new ConfigError(`PARLEY_PRICES_FILE=${JSON.stringify(file)} is invalid: no such file`);
  let parsed;
  try {
    parsed = catalogFile.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new ConfigError(
      `PARLEY_PRICES_FILE=${JSON.stringify(file)} is invalid: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (!parsed.success)
    throw new ConfigError(
      `PARLEY_PRICES_FILE=${JSON.stringify(file)} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const free = Object.fromEntries(freeModels.map((m) => [m, { input: 0, output: 0, cached: 0 }]));
  return createPriceCatalog({ ...free, ...parsed.data.models });
}

/**
 * Every model a role is configured with must have a price (0 is one): cost budgets are always on,
 * and an unknown cost would leave them unlimited. Checked at start, naming each model and its roles.
 */
export function checkPricedModels(
  roles: Record<string, { model: string }>,
  prices: Pick<PriceCatalog, 'priceOf'>,
  pricesFile: string,
): void {
  const unpriced = new Map<string, string[]>();
  for (const [role, { model }] of Object.entries(roles)) {
    if (!prices.priceOf(model)) unpriced.set(model, [...(unpriced.get(model) ?? []), role]);
  }
  if (unpriced.size === 0) return;
  const which = [...unpriced]
    .map(([model, roles]) => `"${model}" (role${roles.length > 1 ? 's' : ''} ${roles.join(', ')})`)
    .join(', ');
  throw new ConfigError(
    `no price for model ${which} in the price catalog ${JSON.stringify(pricesFile)}: cost budgets cannot be enforced on an unknown cost. ` +
      `Add it to a copy of prices.json ({ "models": { "<model>": { "input": <USD per 1M input tokens>, "output": <USD per 1M output tokens> } } }) and point PARLEY_PRICES_FILE at it, ` +
      "or, for a model that costs nothing (a local model such as Ollama's), list it in PARLEY_FREE_MODELS.",
  );
}
