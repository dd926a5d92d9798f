/**
 * Backend-independent registry rules: how a query becomes a TeamConfig pattern, how similar two
 * patterns are, how proficiency is learnt from verifier scores, and how text relevance is combined
 * with the self-model. Both backends (kuzu/, neo4j/) call these so they rank identically.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { sameTask } from './query-shape.ts';
import { jaccard, queryPattern, tokenize } from './words.ts';
import { withFit } from './capabilities.ts';
import type {
  Proficiency,
  RunRecord,
  SpecialistCandidate,
  SpecialistFilter,
  SpecialistRecord,
  TeamConfig,
} from './store.ts';

/** A verifier score at or above this counts as a success (the engine's "synthesize" threshold). */
export const SUCCESS_SCORE = 0.7;

export interface RegistryOptions {
  /** Jaccard similarity a query pattern needs to reuse a team (PARLEY_TEAM_MATCH_THRESHOLD). */
  teamMatchThreshold: number;
  /** Success rate a team needs to be reused (PARLEY_TEAM_MIN_SUCCESS_RATE). */
  teamMinSuccessRate: number;
}

export const DEFAULT_REGISTRY_OPTIONS: RegistryOptions = { teamMatchThreshold: 0.8, teamMinSuccessRate: 0.6 };

export type TeamStats = Pick<TeamConfig, 'id' | 'callerId' | 'pattern' | 'uses' | 'successes' | 'avgScore'>;

/** Best team for the query among `teams`, or undefined when none is similar and proven enough. */
export function pickTeam<T extends TeamStats>(query: string, teams: T[], options: RegistryOptions): T | undefined {
  const pattern = queryPattern(query);
  let best: { team: T; similarity: number } | undefined;
  for (const team of teams) {
    if (team.uses === 0 || team.successes / team.uses < options.teamMinSuccessRate) continue;
    const similarity = jaccard(pattern, team.pattern);
    if (similarity < options.teamMatchThreshold) continue;
    if (
      !best ||
      similarity > best.similarity ||
      (similarity === best.similarity && team.avgScore > best.team.avgScore)
    ) {
      best = { team, similarity };
    }
  }
  return best?.team;
}

/** FTS query text: plain word tokens only, so no backend query syntax leaks in from users. */
export function ftsQueryText(query: string): string {
  return tokenize(query).join(' ');
}

/** Text the full-text index sees for a specialist. */
export function specialistSearchText(s: Pick<SpecialistRecord, 'name' | 'description' | 'domains' | 'tools'>): string {
  return [s.name, s.description, s.domains.join(' '), s.tools.map((t) => t.replace(/[/_-]/g, ' ')).join(' ')].join(
    '\n',
  );
}

/**
 * Quality of a record in 0..1. No record is neutral (0.5). Rates are smoothed (one prior success
 * and one prior failure) so a single lucky run does not outrank a long good record.
 */
export function recordQuality(p: Proficiency | undefined): number {
  if (!p || p.runs === 0) return 0.5;
  const successRate = (p.successes + 1) / (p.runs + 2);
  const meanScore = (p.meanScore * p.runs + 0.5) / (p.runs + 1);
  const latency = 1 / (1 + p.meanLatencyMs / 30_000);
  const cost = 1 / (1 + p.meanCostUsd / 0.05);
  return 0.55 * successRate + 0.3 * meanScore + 0.1 * latency + 0.05 * cost;
}

/** Relevance dominates; the record moves a candidate up to a quarter, which settles ties. */
export function combineScore(relevance: number, proficiency: Proficiency | undefined): number {
  return relevance * (0.75 + 0.25 * recordQuality(proficiency));
}

/**
 * Ranks full-text hits: relevance is the backend's text score divided by the best hit's score
 * (0..1), then combined with proficiency. Unavailable specialists are left out. With `fitOf` (the task
 * needs a capability, capabilities.ts), relevance is the text relevance blended with each specialist's
 * fit, and a specialist that fits is a candidate even when it shares no word with the query.
 */
export function rankCandidates(
  hits: { specialist: SpecialistRecord; textScore: number }[],
  proficiencies: Map<string, Proficiency>,
  k: number,
  fitOf?: (specialist: SpecialistRecord) => number,
): SpecialistCandidate[] {
  const fits = new Map(fitOf ? hits.map((h) => [h.specialist, fitOf(h.specialist)] as const) : []);
  const usable = hits.filter((h) => h.specialist.available && (h.textScore > 0 || (fits.get(h.specialist) ?? 0) > 0));
  const max = Math.max(0, ...usable.map((h) => h.textScore));
  if (usable.length === 0) return [];
  return usable
    .map((h) => {
      const text = max > 0 ? h.textScore / max : 0;
      const relevance = fitOf ? withFit(text, fits.get(h.specialist)!) : text;
      const proficiency = proficiencies.get(h.specialist.id);
      return { specialist: h.specialist, relevance, proficiency, score: combineScore(relevance, proficiency) };
    })
    .sort((a, b) => b.score - a.score || a.specialist.id.localeCompare(b.specialist.id))
    .slice(0, k);
}

/** One observation for a specialist or domain learnt from a finished run. */
export interface Observation {
  success: boolean;
  score: number;
  latencyMs: number;
  costUsd: number | null;
}

/**
 * Whether a finished run teaches anything: only runs the verifier scored (a direct answer says
 * nothing about the specialists), and never a cancelled or blocked one (stopped by a person or a
 * budget, not by how well its team did, even when a verifier round had already scored it).
 */
export function runTeaches(run: Pick<RunRecord, 'score' | 'status'>): boolean {
  return run.score !== null && run.status !== 'cancelled' && run.status !== 'blocked';
}

/**
 * What a finished run teaches: one observation per step's specialist, and per domain of that
 * specialist. A step that failed scores 0 whatever the run's final score; a step that never ran
 * (skipped because a dependency failed, or cancelled) says nothing about its specialist.
 */
export function observationsOf(run: RunRecord): { specialistId: string; observation: Observation }[] {
  if (!runTeaches(run)) return [];
  const score = run.score!;
  return run.steps
    .filter((step) => step.status === 'succeeded' || step.status === 'failed')
    .map((step) => {
      const succeeded = step.status === 'succeeded';
      const stepScore = succeeded ? score : 0;
      return {
        specialistId: step.specialist,
        observation: {
          success: stepScore >= SUCCESS_SCORE,
          score: stepScore,
          latencyMs: step.durationMs,
          costUsd: step.costUsd,
        },
      };
    });
}

/** Stored running totals behind a Proficiency (costRuns: observations that had a known cost). */
export interface ProficiencyTotals extends Proficiency {
  costRuns: number;
}

/** The Proficiency callers see: the totals without the bookkeeping behind them. */
export function publicProficiency(p: ProficiencyTotals): Proficiency {
  const { costRuns: _costRuns, ...rest } = p;
  return rest;
}

/**
 * The specialist callers see: a specialist file folder's source id names the folder, not where it is
 * on the server's disk (`skills:/home/me/.config/parley/specialists` → `skills:specialists`).
 */
export function publicSpecialist(s: SpecialistRecord): SpecialistRecord {
  if (!s.sourceId.startsWith('skills:')) return s;
  return { ...s, sourceId: `skills:${basename(s.sourceId.slice('skills:'.length)) || 'specialists'}` };
}

export function emptyProficiency(subject: string, kind: Proficiency['kind']): ProficiencyTotals {
  return { subject, kind, runs: 0, successes: 0, meanScore: 0, meanLatencyMs: 0, meanCostUsd: 0, costRuns: 0 };
}

export function applyObservation(p: ProficiencyTotals, o: Observation): ProficiencyTotals {
  const runs = p.runs + 1;
  const costRuns = p.costRuns + (o.costUsd === null ? 0 : 1);
  return {
    ...p,
    runs,
    successes: p.successes + (o.success ? 1 : 0),
    meanScore: p.meanScore + (o.score - p.meanScore) / runs,
    meanLatencyMs: p.meanLatencyMs + (o.latencyMs - p.meanLatencyMs) / runs,
    meanCostUsd: o.costUsd === null ? p.meanCostUsd : p.meanCostUsd + (o.costUsd - p.meanCostUsd) / costRuns,
    costRuns,
  };
}

/** The team a run used: its specialists (sorted, unique) under the query's pattern. */
export function teamOf(run: RunRecord): { pattern: string; specialists: string[] } | undefined {
  if (!run.plan || !runTeaches(run)) return undefined;
  const specialists = [...new Set(run.plan.steps.map((s) => s.specialist))].sort();
  return { pattern: queryPattern(run.query), specialists };
}

/**
 * Stable TeamConfig id for a caller, pattern and team, so the same team under the same pattern
 * accumulates, per caller: a team's plan carries its caller's objectives, so callers never share one.
 */
export function teamId(pattern: string, specialists: string[], callerId: string): string {
  return (
    'team:' +
    createHash('sha256')
      .update(callerId + '|' + pattern + '|' + specialists.join(','))
      .digest('hex')
      .slice(0, 20)
  );
}

/**
 * A proven plan is only replaced by another that succeeded, for the same task: a query with the
 * team's words in another order or negated ("from B to A", "never…") shares its pattern and
 * specialists, hence its TeamConfig, but not its plan. The plan keeps the query it was made for.
 */
function replacesPlan(team: TeamConfig, run: RunRecord, success: boolean): boolean {
  if (!success || !run.plan) return false;
  const taughtBy = team.plan.taughtBy;
  return taughtBy === undefined || sameTask(taughtBy, run.query);
}

export function applyTeamRun(team: TeamConfig, run: RunRecord): TeamConfig {
  const score = run.score ?? 0;
  const uses = team.uses + 1;
  const success = score >= SUCCESS_SCORE;
  return {
    ...team,
    uses,
    successes: team.successes + (success ? 1 : 0),
    avgScore: team.avgScore + (score - team.avgScore) / uses,
    plan: replacesPlan(team, run, success) ? { ...run.plan!, taughtBy: run.query } : team.plan,
  };
}

/** GET /api/specialists filters, applied the same way by every backend. */
export function matchesFilter(s: SpecialistRecord, filter: SpecialistFilter = {}): boolean {
  if (filter.kind !== undefined && s.kind !== filter.kind) return false;
  if (filter.available !== undefined && s.available !== filter.available) return false;
  if (filter.domain !== undefined && !s.domains.some((d) => d.toLowerCase() === filter.domain!.toLowerCase()))
    return false;
  if (filter.text) {
    const haystack = specialistSearchText(s).toLowerCase() + ' ' + s.id.toLowerCase();
    if (!tokenize(filter.text).every((w) => haystack.includes(w))) return false;
  }
  return true;
}
