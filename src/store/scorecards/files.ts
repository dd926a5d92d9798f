/**
 * The scorecards `parley eval` keeps for the console (docs/evals.md, "In the console"): files under
 * `<data dir>/evals/<caller>/`, the last KEEP_SCORECARDS per caller (the oldest dropped on each write),
 * each at most MAX_SCORECARD_BYTES. The eval runs in its own process on a throwaway data dir; what it
 * leaves for the service is only this, written with a rename so a reader never sees half a file.
 * Each scorecard is two files: `<id>.summary.json` (what the list shows, a few hundred bytes) and
 * `<id>.json` (the whole scorecard), so listing reads 50 small files, never 50 whole scorecards.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canSee, ownerFilter, type Caller } from '../../identity/caller.ts';

/** Scorecards kept per caller; a write past this drops the oldest. */
export const KEEP_SCORECARDS = 50;
/** A bigger scorecard is kept without its per-run outcomes (the table and the failures stay). */
export const MAX_SCORECARD_BYTES = 2 * 1024 * 1024;

/**
 * What this file reads of a scorecard (eval/scorecard.ts's Scorecard; store/ is a bottom layer and
 * does not import it). The rest is kept as `parley eval` wrote it.
 */
export interface Scorecard {
  suite: string;
  repeat: number;
  /** The env file it ran under (`parley eval --compare` keeps one scorecard per configuration). */
  configuration?: string;
  overall: { runs: number; passed: number; passRate: number; passHatK: number; cases: number; casesPassedAll: number };
  failures: unknown[];
  /** `parley eval --versus direct` (eval/versus-card.ts): the graph against one direct call. */
  versus?: { overall: VersusOverall };
  outcomes: {
    usage: { modelCalls: number; inputTokens: number; outputTokens: number; costUsd: number | null };
    durationMs: number;
  }[];
}

/** The overall counts of a versus scorecard (eval/versus-card.ts adds the spend), as the list shows them. */
export interface VersusOverall {
  /** Comparisons made; `errors` more could not be made (a direct or judge call failed). */
  compared: number;
  wins: number;
  ties: number;
  losses: number;
  errors: number;
  wonOrTied: number;
  /** (wins + ties) / compared; 0 when nothing was compared. */
  wonOrTiedRate: number;
}

export interface ScorecardSummary {
  id: string;
  at: string;
  /** The caller id that ran it (an admin sees every caller's). */
  caller: string;
  suite: string;
  repeat: number;
  configuration?: string;
  overall: Scorecard['overall'];
  failures: number;
  /** Totals over every run: model calls, tokens, cost (null when a model had no price), wall time. */
  totals: { calls: number; tokens: number; costUsd: number | null; wallMs: number };
  /** True when the scorecard was over MAX_SCORECARD_BYTES and was kept without its outcomes. */
  outcomesDropped?: boolean;
  /** With --versus direct: the graph's wins, ties and losses against one direct call. */
  versus?: VersusOverall;
}

export interface KeptScorecard {
  summary: ScorecardSummary;
  scorecard: Scorecard;
}

const ID = /^ev-\d{13}-[0-9a-f]{8}$/;
export const isScorecardId = (id: string) => ID.test(id);

const root = (dataDir: string) => join(dataDir, 'evals');
/** A caller's folder: its id when it is a plain name (every id Parley makes is), else a digest of it. */
const folderOf = (callerId: string) =>
  /^[A-Za-z0-9_-]{1,64}$/.test(callerId)
    ? callerId
    : `h-${createHash('sha256').update(callerId).digest('hex').slice(0, 16)}`;

function totalsOf(card: Scorecard): ScorecardSummary['totals'] {
  const sum = (f: (o: Scorecard['outcomes'][number]) => number) => card.outcomes.reduce((a, o) => a + f(o), 0);
  const priced = card.outcomes.every((o) => o.usage.costUsd !== null);
  return {
    calls: sum((o) => o.usage.modelCalls),
    tokens: sum((o) => o.usage.inputTokens + o.usage.outputTokens),
    costUsd: priced ? sum((o) => o.usage.costUsd ?? 0) : null,
    wallMs: sum((o) => o.durationMs),
  };
}

/** The counts alone (the spend stays in the whole scorecard). */
const versusOverallOf = (o: VersusOverall): VersusOverall => ({
  compared: o.compared,
  wins: o.wins,
  ties: o.ties,
  losses: o.losses,
  errors: o.errors,
  wonOrTied: o.wonOrTied,
  wonOrTiedRate: o.wonOrTiedRate,
});

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}

/** Keeps a scorecard for `callerId`; drops that caller's oldest past KEEP_SCORECARDS. Returns its summary. */
export function keepScorecard(dataDir: string, callerId: string, card: Scorecard, now = new Date()): ScorecardSummary {
  const folder = join(root(dataDir), folderOf(callerId));
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const id = `ev-${String(now.getTime()).padStart(13, '0')}-${randomBytes(4).toString('hex')}`;
  let text = JSON.stringify(card);
  let outcomesDropped = false;
  if (Buffer.byteLength(text) > MAX_SCORECARD_BYTES) {
    text = JSON.stringify({ ...card, outcomes: [] });
    outcomesDropped = true;
  }
  const summary: ScorecardSummary = {
    id,
    at: now.toISOString(),
    caller: callerId,
    suite: card.suite,
    repeat: card.repeat,
    ...(card.configuration ? { configuration: card.configuration } : {}),
    overall: card.overall,
    failures: card.failures.length,
    totals: totalsOf(card),
    ...(outcomesDropped ? { outcomesDropped } : {}),
    ...(card.versus ? { versus: versusOverallOf(card.versus.overall) } : {}),
  };
  // The whole scorecard first: a summary is listed only once what it points at is there.
  writeAtomically(join(folder, `${id}.json`), text);
  writeAtomically(join(folder, `${id}.summary.json`), JSON.stringify(summary));
  const ids = idsIn(folder);
  for (const old of ids.slice(0, Math.max(0, ids.length - KEEP_SCORECARDS))) {
    rmSync(join(folder, `${old}.summary.json`), { force: true });
    rmSync(join(folder, `${old}.json`), { force: true });
  }
  return summary;
}

/** The scorecard ids in a folder, oldest first (ids sort by time). */
function idsIn(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.summary.json'))
    .map((n) => n.slice(0, -'.summary.json'.length))
    .filter(isScorecardId)
    .sort();
}

function readJsonFile<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined; // dropped meanwhile, or never whole: not listed
  }
}

/** The folders a caller may read: its own, or every caller's for an admin. */
function foldersFor(dataDir: string, caller: Caller): string[] {
  const owner = ownerFilter(caller);
  if (owner !== undefined) return [join(root(dataDir), folderOf(owner))];
  try {
    return readdirSync(root(dataDir)).map((name) => join(root(dataDir), name));
  } catch {
    return [];
  }
}

/** The caller's kept scorecards, newest first, at most `limit`. */
export function listScorecards(dataDir: string, caller: Caller, limit = KEEP_SCORECARDS): ScorecardSummary[] {
  const found: { id: string; folder: string }[] = foldersFor(dataDir, caller).flatMap((folder) =>
    idsIn(folder).map((id) => ({ id, folder })),
  );
  found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return found
    .slice(0, limit)
    .map(({ id, folder }) => readJsonFile<ScorecardSummary>(join(folder, `${id}.summary.json`)))
    .filter((s): s is ScorecardSummary => s !== undefined && canSee(caller, s.caller));
}

/** One kept scorecard, or undefined when the caller has none of that id. */
export function readScorecard(dataDir: string, caller: Caller, id: string): KeptScorecard | undefined {
  if (!isScorecardId(id)) return undefined;
  for (const folder of foldersFor(dataDir, caller)) {
    const summary = readJsonFile<ScorecardSummary>(join(folder, `${id}.summary.json`));
    if (!summary || !canSee(caller, summary.caller)) continue;
    const scorecard = readJsonFile<Scorecard>(join(folder, `${id}.json`));
    if (scorecard) return { summary, scorecard };
  }
  return undefined;
}
