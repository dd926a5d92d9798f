/**
 * Where `parley eval` leaves its scorecard for the console's eval page (docs/evals.md, "In the
 * console"): under the data dir of your configuration — not the throwaway one the suite ran on — so the
 * service of that data dir serves it at GET /api/evals, running now or started later. It belongs to the
 * local caller (as `parley run`'s runs do), or, with PARLEY_API_KEY set to one of the configured keys,
 * to that key's caller: the console signed in with that key shows it.
 */
import type { Config } from '../config.ts';
import type { Scorecard } from '../eval/scorecard.ts';
import { callerIdOf } from '../http/auth.ts';
import { LOCAL_CALLER } from '../identity/caller.ts';
import { keepScorecard } from '../store/scorecards/files.ts';

/** The caller id a scorecard belongs to; an error when PARLEY_API_KEY is set but not a configured key. */
export function scorecardOwner(config: Config, apiKey: string | undefined): { id: string } | { error: string } {
  if (!apiKey) return { id: LOCAL_CALLER.id };
  const keys = [...config.server.apiKeys, ...config.server.adminKeys];
  if (!keys.includes(apiKey))
    return { error: 'PARLEY_API_KEY is not one of PARLEY_API_KEYS / PARLEY_ADMIN_KEYS: the scorecard is not kept' };
  return { id: callerIdOf(apiKey) };
}

/** Keeps the scorecard for the console; a line saying where (or why not). */
export function keepForConsole(config: Config, apiKey: string | undefined, card: Scorecard): string {
  if (config.store.dataDir === ':memory:')
    return 'with PARLEY_DATA_DIR=:memory: the scorecard is not kept for the console';
  const owner = scorecardOwner(config, apiKey);
  if ('error' in owner) return owner.error;
  let kept;
  try {
    kept = keepScorecard(config.store.dataDir, owner.id, card);
  } catch (err) {
    // The suite ran and its JSON is written: a data dir that cannot take the copy changes no result.
    return `the scorecard could not be kept for the console (${(err as Error).message})`;
  }
  return `scorecard ${kept.id} kept for the console (the Evals page; GET /api/evals/${kept.id})${kept.outcomesDropped ? ', without its per-run outcomes (too large)' : ''}`;
}
