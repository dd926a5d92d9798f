/**
 * KnowledgeView: the in-memory copy of what every run reads from the knowledge store — the
 * specialists (with a text index for ranking), the proficiencies, the TeamConfig statistics, and
 * a bounded window of recent runs (with a text index for the execution memory's search) — so the
 * router's team lookup, candidate ranking and memory search cost no database round trip.
 *
 * CypherStore owns one (through cypher/view-cache.ts): it loads it on first use, writes its own
 * changes through to it after they commit, and merges a periodic re-read in when other processes may write the same database
 * (Neo4j). Counters only grow, so an update carrying fewer uses/runs than the view already has is
 * older news and is ignored: concurrent commits and a refresh can arrive in any order. Runs are
 * never deleted, so a refresh's runs are folded into the window (which keeps only the newest).
 */
import type {
  CallerScope,
  MemoryHit,
  Proficiency,
  SpecialistCandidate,
  SpecialistFilter,
  SpecialistRecord,
  TeamConfig,
  ToolRecord,
} from './store.ts';
import {
  matchesFilter,
  publicProficiency,
  rankCandidates,
  type ProficiencyTotals,
  type RegistryOptions,
  type TeamStats,
} from './registry.ts';
import { queryPattern } from './words.ts';
import { asksToWriteFile, fileWriteFit, writesFiles } from './capabilities.ts';
import { SpecialistTextIndex } from './text-index.ts';
import { MEMORY_WINDOW, RunMemoryIndex, type MemoryEntry } from './run-memory.ts';

/** What the view is loaded (and refreshed) from. */
export interface ViewSnapshot {
  specialists: SpecialistRecord[];
  /** Keyed `${kind}:${subject}`, as stored. */
  proficiencies: { id: string; totals: ProficiencyTotals }[];
  teams: TeamStats[];
  /** The most recent runs (at most the view's memory window), for searchMemory. */
  runs?: MemoryEntry[];
  /** The registry's tools, for what the specialists bound to them can do (capabilities.ts). */
  tools?: ToolRecord[];
}

export interface KnowledgeViewOptions {
  /** How many of the most recent runs (by startedAt) searchMemory searches. */
  memoryWindow: number;
}

interface TeamEntry {
  id: string;
  /** Whose runs taught it ('' for teams recorded before teams had owners). */
  callerId: string;
  /** The pattern's words, unique and sorted, for a merge-based Jaccard. */
  words: string[];
  uses: number;
  successes: number;
  avgScore: number;
}

/** Whole TeamConfigs (with plans) kept for reuse; the statistics of every team are always kept. */
const FULL_TEAMS = 256;

const wordsOf = (pattern: string) => [...new Set(pattern.split(' ').filter(Boolean))].sort();

function copySpecialist(s: SpecialistRecord): SpecialistRecord {
  return { ...s, domains: [...s.domains], tools: [...s.tools] };
}

export class KnowledgeView {
  readonly #specialists = new Map<string, SpecialistRecord>();
  /** The available tools that write files: id → the source that listed it. */
  readonly #fileWriters = new Map<string, string | undefined>();
  #sorted?: SpecialistRecord[];
  #index?: SpecialistTextIndex;
  readonly #proficiencies = new Map<string, ProficiencyTotals>();
  readonly #teams = new Map<string, TeamEntry>();
  readonly #fullTeams = new Map<string, TeamConfig>();
  readonly #memory: RunMemoryIndex;

  constructor(snapshot: ViewSnapshot, options: KnowledgeViewOptions = { memoryWindow: MEMORY_WINDOW }) {
    this.#memory = new RunMemoryIndex(options.memoryWindow);
    this.#replaceSpecialists(snapshot.specialists);
    this.upsertTools(snapshot.tools ?? []);
    this.merge(snapshot, { specialists: false, runs: true });
  }

  // ── Registry ────────────────────────────────────────────────────────────

  /** Copies, ordered by id (what listSpecialists answers). */
  listSpecialists(filter?: SpecialistFilter): SpecialistRecord[] {
    this.#sorted ??= [...this.#specialists.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this.#sorted.filter((s) => matchesFilter(s, filter)).map(copySpecialist);
  }

  getSpecialist(id: string): SpecialistRecord | undefined {
    const s = this.#specialists.get(id);
    return s ? copySpecialist(s) : undefined;
  }

  /** Domains of a specialist (what a run's observations also teach), or undefined if unknown. */
  domainsOf(id: string): readonly string[] | undefined {
    return this.#specialists.get(id)?.domains;
  }

  /** Write-through of upserted specialists (records as they read back from the store). */
  upsertSpecialists(records: SpecialistRecord[]): void {
    for (const s of records) this.#specialists.set(s.id, s);
    this.#registryChanged();
  }

  /** Write-through of upserted tools. */
  upsertTools(tools: ToolRecord[]): void {
    for (const t of tools) {
      if (writesFiles(t)) this.#fileWriters.set(t.id, t.sourceId);
      else this.#fileWriters.delete(t.id);
    }
  }

  /** Write-through of markGone: the same rule as the backends' markSpecialistsGone and markToolsGone statements. */
  markGone(sourceId: string, keep: string[], keepTools: string[] = []): void {
    const keptTools = new Set(keepTools);
    for (const [id, source] of this.#fileWriters)
      if (source === sourceId && !keptTools.has(id)) this.#fileWriters.delete(id);
    const kept = new Set(keep);
    for (const [id, s] of this.#specialists) {
      if (s.sourceId === sourceId && !kept.has(id) && s.available) {
        this.#specialists.set(id, { ...s, available: false, unavailableReason: 'no longer listed by its source' });
      }
    }
    this.#registryChanged();
  }

  /**
   * Top-k candidates: BM25 relevance (normalised to the best hit) combined with proficiency; for a task
   * that asks to write a file, blended with each specialist's fit to it (capabilities.ts), every
   * specialist that can write files being a candidate.
   */
  rank(query: string, k: number): SpecialistCandidate[] {
    this.#index ??= new SpecialistTextIndex(this.#specialists.values());
    const hits = this.#index.search(query);
    const fitOf = asksToWriteFile(query) ? (s: SpecialistRecord) => fileWriteFit(s, this.#fileWriters) : undefined;
    if (fitOf) {
      const found = new Set(hits.map((h) => h.specialist.id));
      for (const s of this.#specialists.values())
        if (!found.has(s.id) && fitOf(s) > 0) hits.push({ specialist: s, textScore: 0 });
    }
    if (hits.length === 0) return [];
    const profs = new Map<string, Proficiency>();
    for (const h of hits) {
      const p = this.#proficiencies.get(`specialist:${h.specialist.id}`);
      if (p) profs.set(h.specialist.id, publicProficiency(p));
    }
    return rankCandidates(hits, profs, k, fitOf);
  }

  // ── Execution memory ────────────────────────────────────────────────────

  /** The k runs of the window that match the query best, at least minRelevance relevant (run-memory.ts). */
  searchMemory(query: string, k: number, scope: CallerScope = {}, minRelevance = 0): MemoryHit[] {
    return this.#memory.search(query, k, scope.callerId, minRelevance);
  }

  /** Write-through of a recorded run. */
  recordRun(run: MemoryEntry): void {
    this.#memory.record(run);
  }

  /**
   * Best proven team for the query: the same rule as registry.ts pickTeam, without re-splitting
   * patterns; with a callerId, among that caller's teams only.
   */
  pickTeam(query: string, options: RegistryOptions, scope: CallerScope = {}): TeamStats | undefined {
    const words = wordsOf(queryPattern(query));
    let best: { team: TeamEntry; similarity: number } | undefined;
    for (const team of this.#teams.values()) {
      if (scope.callerId !== undefined && team.callerId !== scope.callerId) continue;
      if (team.uses === 0 || team.successes / team.uses < options.teamMinSuccessRate) continue;
      const small = Math.min(words.length, team.words.length);
      const large = Math.max(words.length, team.words.length);
      // Jaccard is at most |small| / |large|: skip what cannot reach the threshold.
      if (large === 0 || small / large < options.teamMatchThreshold) continue;
      const similarity = jaccardSorted(words, team.words);
      if (similarity < options.teamMatchThreshold) continue;
      if (
        !best ||
        similarity > best.similarity ||
        (similarity === best.similarity && team.avgScore > best.team.avgScore)
      ) {
        best = { team, similarity };
      }
    }
    if (!best) return undefined;
    const { id, callerId, uses, successes, avgScore } = best.team;
    return { id, callerId, pattern: best.team.words.join(' '), uses, successes, avgScore };
  }

  /** A whole TeamConfig if the view holds it and it is as recent as its statistics. */
  fullTeam(id: string): TeamConfig | undefined {
    const team = this.#fullTeams.get(id);
    const stats = this.#teams.get(id);
    if (!team || !stats || team.uses !== stats.uses) return undefined;
    return team;
  }

  hasTeam(id: string): boolean {
    return this.#teams.has(id);
  }

  /** A team as committed (write-through) or as read whole from the store. */
  applyTeam(team: TeamConfig): void {
    this.#applyTeamStats(team);
    if (this.#teams.get(team.id)?.uses !== team.uses) return;
    this.#fullTeams.delete(team.id);
    this.#fullTeams.set(team.id, team);
    if (this.#fullTeams.size > FULL_TEAMS) this.#fullTeams.delete(this.#fullTeams.keys().next().value!);
  }

  proficiency(id: string): ProficiencyTotals | undefined {
    return this.#proficiencies.get(id);
  }

  /** Proficiency totals as committed. */
  applyProficiency(id: string, totals: ProficiencyTotals): void {
    const current = this.#proficiencies.get(id);
    if (!current || totals.runs >= current.runs) this.#proficiencies.set(id, totals);
  }

  /**
   * Folds a fresh read of the store in (what other processes wrote). Specialists are replaced
   * unless a registry write of ours happened while the read was in flight; likewise the read's runs
   * replace those the view holds with the same id unless a run was recorded by us meanwhile (then
   * only runs the view lacks are added, so a stale read cannot undo our re-recorded run).
   */
  merge(snapshot: ViewSnapshot, options: { specialists: boolean; runs?: boolean }): void {
    if (options.specialists) {
      this.#replaceSpecialists(snapshot.specialists);
      this.#fileWriters.clear();
      this.upsertTools(snapshot.tools ?? []);
    }
    for (const run of snapshot.runs ?? [])
      if (options.runs !== false || !this.#memory.has(run.id)) this.#memory.record(run);
    for (const { id, totals } of snapshot.proficiencies) this.applyProficiency(id, totals);
    for (const team of snapshot.teams) this.#applyTeamStats(team);
  }

  #applyTeamStats(team: TeamStats): void {
    const current = this.#teams.get(team.id);
    if (current && team.uses < current.uses) return;
    this.#teams.set(team.id, {
      id: team.id,
      callerId: team.callerId || current?.callerId || '',
      words: current && current.words.join(' ') === team.pattern ? current.words : wordsOf(team.pattern),
      uses: team.uses,
      successes: team.successes,
      avgScore: team.avgScore,
    });
  }

  #replaceSpecialists(records: SpecialistRecord[]): void {
    this.#specialists.clear();
    for (const s of records) this.#specialists.set(s.id, s);
    this.#registryChanged();
  }

  #registryChanged(): void {
    this.#sorted = undefined;
    this.#index = undefined;
  }
}

/** Jaccard similarity of two sorted, duplicate-free word lists. */
function jaccardSorted(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 0;
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      both++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return both / (a.length + b.length - both);
}
