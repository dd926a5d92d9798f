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
] as const;
export type ContenderName = (typeof CONTENDER_NAMES)[number];

/** `--only parley` selects every Parley variant; `--only langgraph` or `--only floor` one contender. */
export function selectContenders(only: string[] | undefined): ContenderName[] {
  if (!only?.length) return [...CONTENDER_NAMES];
  return CONTENDER_NAMES.filter((name) => only.some((o) => name === o || name.startsWith(`${o}-`)));
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
  }
}
