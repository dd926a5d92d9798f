/**
 * The contenders by name. Parley's are imported lazily so that the framework contenders run even
 * while the engine is being built (and so each worker process loads only what it measures).
 */
import type { Contender } from '../lib/contender.ts';

export const CONTENDER_NAMES = [
  'floor',
  'langgraph',
  'parley',
  'parley-nokg',
  'parley-retain1s',
  'parley-stream',
  'langgraph-durable',
  'parley-pg',
] as const;
export type ContenderName = (typeof CONTENDER_NAMES)[number];

/**
 * Run only when named in --only (issue 32: what durability costs on a shared backend): each starts a
 * local Postgres, and the default set already takes over 40 minutes.
 */
export const OPT_IN: readonly ContenderName[] = ['langgraph-durable', 'parley-pg'];
/** Start a local Postgres (test/support/postgres.ts): skipped where Debian's server binaries are missing. */
export const NEEDS_POSTGRES: readonly ContenderName[] = ['langgraph-durable', 'parley-pg'];

/**
 * `--only parley` selects every Parley variant; `--only langgraph` or `--only floor` one contender.
 * An opt-in contender only by its full name.
 */
export function selectContenders(only: string[] | undefined): ContenderName[] {
  if (!only?.length) return CONTENDER_NAMES.filter((name) => !OPT_IN.includes(name));
  return CONTENDER_NAMES.filter((name) =>
    only.some((o) => name === o || (!OPT_IN.includes(name) && name.startsWith(`${o}-`))),
  );
}

export async function loadContender(name: ContenderName): Promise<Contender> {
  switch (name) {
    case 'floor':
      return (await import('./floor.ts')).floor;
    case 'langgraph':
      return (await import('./langgraph.ts')).langgraph;
    case 'parley':
      return (await import('./parley.ts')).parley({ knowledgeWrites: true });
    case 'parley-nokg':
      return (await import('./parley.ts')).parley({ knowledgeWrites: false });
    case 'parley-retain1s':
      return (await import('./parley.ts')).parley({ knowledgeWrites: true, runRetentionMs: 1000 });
    case 'parley-stream':
      return (await import('./parley-stream.ts')).parleyStream;
    case 'langgraph-durable':
      return (await import('./langgraph-durable.ts')).langgraphDurable;
    case 'parley-pg':
      return (await import('./parley.ts')).parley({ knowledgeWrites: true, postgres: true });
  }
}
