/**
 * The KnowledgeStore both backends share. A backend supplies its Cypher (cypher/queries.ts: one
 * statement per QueryName, in its own dialect) and an executor (cypher/executor.ts: how to run
 * reads and atomic writes); everything else is here and in cypher/, so the two cannot drift:
 * - cypher/view-cache.ts: the in-memory view the hot path reads (loaded once, written through, refreshed);
 * - cypher/specialist-registry.ts: sources, specialists and tools;
 * - cypher/run-recorder.ts: recordRun's group commit, approvals and decisions, and
 *   cypher/learn-from-runs.ts: what a batch of runs teaches (teams, proficiencies);
 * - cypher/run-record-validation.ts: a run record's shape, checked before it joins a batch;
 * - this class: composes them, and reads the execution memory.
 */
import type {
  ApprovalRecord,
  CallerScope,
  DecisionRecord,
  KnowledgeStore,
  MemoryHit,
  MemorySearchOptions,
  Proficiency,
  RunRecord,
  RunSummary,
  SourceRecord,
  SpecialistCandidate,
  SpecialistFilter,
  SpecialistRecord,
  TeamConfig,
  ToolRecord,
} from './store.ts';
import { publicProficiency, SUCCESS_SCORE, teamOf, type RegistryOptions } from './registry.ts';
import { jaccard, queryPattern } from './words.ts';
import type { KnowledgeView } from './view.ts';
import {
  approvalFromNode,
  decisionFromNode,
  json,
  num,
  optNum,
  proficiencyFromNode,
  runFromNodes,
  str,
  teamFromNode,
} from './rows.ts';
import { nodeOf, type CypherExecutor } from './cypher/executor.ts';
import type { QuerySet } from './cypher/queries.ts';
import { ViewCache, type ViewOptions } from './cypher/view-cache.ts';
import * as registry from './cypher/specialist-registry.ts';
import { memoryEntryOf, RunRecorder, type RecordRunOptions } from './cypher/run-recorder.ts';
import { proficiencyId } from './cypher/learn-from-runs.ts';

export type { CypherExecutor } from './cypher/executor.ts';
export type { ViewOptions } from './cypher/view-cache.ts';
export { MAX_RUN_BATCH, type RecordRunOptions } from './cypher/run-recorder.ts';

export class CypherStore implements KnowledgeStore {
  readonly #exec: CypherExecutor;
  readonly #Q: QuerySet;
  readonly #options: RegistryOptions;
  readonly #cache: ViewCache;
  readonly #registry: registry.RegistryDb;
  readonly #recorder: RunRecorder;
  /**
   * What each waiting record teaches (teamOf), worked out once: findTeamConfig looks at every waiting
   * record at every run, and with 100 runs in flight ~80 wait in a 2 s window (the record is not
   * changed after recordRun: the recorder writes that same object later).
   */
  readonly #pendingTeams = new WeakMap<RunRecord, ReturnType<typeof teamOf> | null>();
  /** The waiting records each view's memory window holds already (a reloaded view is a new object: it gets them all). */
  readonly #windowed = new WeakMap<KnowledgeView, WeakSet<RunRecord>>();

  constructor(
    exec: CypherExecutor,
    Q: QuerySet,
    options: RegistryOptions,
    view: ViewOptions = { refreshMs: Infinity },
  ) {
    this.#exec = exec;
    this.#Q = Q;
    this.#options = options;
    this.#cache = new ViewCache(exec, Q, view);
    this.#registry = { exec, Q, cache: this.#cache };
    this.#recorder = new RunRecorder(exec, Q, this.#cache);
  }

  // ── Registry ────────────────────────────────────────────────────────────

  upsertSource(source: SourceRecord): Promise<void> {
    return registry.upsertSource(this.#registry, source);
  }

  getSource(id: string): Promise<SourceRecord | undefined> {
    return registry.getSource(this.#registry, id);
  }

  upsertSpecialists(specialists: SpecialistRecord[]): Promise<void> {
    return registry.upsertSpecialists(this.#registry, specialists);
  }

  upsertTools(tools: ToolRecord[]): Promise<void> {
    return registry.upsertTools(this.#registry, tools);
  }

  markGone(sourceId: string, keepSpecialistIds: string[], keepToolIds: string[]): Promise<void> {
    return registry.markGone(this.#registry, sourceId, keepSpecialistIds, keepToolIds);
  }

  listSpecialists(filter?: SpecialistFilter): Promise<SpecialistRecord[]> {
    return registry.listSpecialists(this.#registry, filter);
  }

  getSpecialist(id: string): Promise<SpecialistRecord | undefined> {
    return registry.getSpecialist(this.#registry, id);
  }

  listTools(server?: string): Promise<ToolRecord[]> {
    return registry.listTools(this.#registry, server);
  }

  getTool(id: string): Promise<ToolRecord | undefined> {
    return registry.getTool(this.#registry, id);
  }

  retrieveSpecialists(query: string, k: number): Promise<SpecialistCandidate[]> {
    return registry.retrieveSpecialists(this.#registry, query, k);
  }

  // ── Execution memory: writes ────────────────────────────────────────────

  /** Group commit (cypher/run-recorder.ts): settles when the record's batch is committed or has failed. */
  recordRun(run: RunRecord, options?: RecordRunOptions): Promise<void> {
    return this.#recorder.recordRun(run, options);
  }

  settleRuns(): Promise<void> {
    return this.#recorder.settle();
  }

  recordApproval(approval: ApprovalRecord): Promise<void> {
    return this.#recorder.recordApproval(approval);
  }

  recordDecision(decision: DecisionRecord): Promise<void> {
    return this.#recorder.recordDecision(decision);
  }

  // ── Execution memory: reads ─────────────────────────────────────────────

  async findTeamConfig(query: string, scope: CallerScope = {}): Promise<TeamConfig | undefined> {
    let view = await this.#cache.view();
    let best = view.pickTeam(query, this.#options, scope);
    if (this.#couldChangeTeam(query, scope, best?.id)) {
      await this.#recorder.settle();
      view = await this.#cache.view();
      best = view.pickTeam(query, this.#options, scope);
    }
    if (!best) return undefined;
    let team = view.fullTeam(best.id);
    if (!team) {
      const rows = await this.#exec.read((q) => q(this.#Q.getTeam, { id: best.id }));
      if (!rows[0]) return undefined;
      team = teamFromNode(nodeOf(rows[0], 't'));
      view.applyTeam(team);
    }
    // The view's copy stays private: callers get their own.
    return structuredClone(team);
  }

  /**
   * Whether a record not yet committed could change which team findTeamConfig answers (then it waits
   * for it): one of the caller's runs whose query pattern is close enough to teach or update a team for
   * this query, unless it only confirms the team found (it reused that team and succeeded).
   */
  #couldChangeTeam(query: string, scope: CallerScope, found: string | undefined): boolean {
    const pending = this.#recorder.pendingRuns();
    if (pending.length === 0) return false;
    const pattern = queryPattern(query);
    // Waiting records mostly share a few patterns (the same task asked again): one comparison each.
    const similarity = new Map<string, number>();
    return pending.some((run) => {
      if (scope.callerId !== undefined && run.callerId !== scope.callerId) return false;
      const team = this.#pendingTeam(run);
      if (!team) return false;
      let similar = similarity.get(team.pattern);
      if (similar === undefined) similarity.set(team.pattern, (similar = jaccard(pattern, team.pattern)));
      if (similar < this.#options.teamMatchThreshold) return false;
      return !(found !== undefined && run.teamConfigId === found && (run.score ?? 0) >= SUCCESS_SCORE);
    });
  }

  #pendingTeam(run: RunRecord): ReturnType<typeof teamOf> {
    let team = this.#pendingTeams.get(run);
    if (team === undefined) this.#pendingTeams.set(run, (team = teamOf(run) ?? null));
    return team ?? undefined;
  }

  /** Reads of execution memory see every record handed to recordRun before them (deferred ones are written first). */
  async #settled(runId?: string): Promise<void> {
    const pending = this.#recorder.pendingRuns();
    if (pending.length && (runId === undefined || pending.some((r) => r.id === runId))) await this.#recorder.settle();
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    await this.#settled(id);
    return this.#exec.read(async (q) => {
      const rows = await q(this.#Q.getRun, { id });
      if (!rows[0]) return undefined;
      const steps = await q(this.#Q.stepsOfRun, { runId: id });
      return runFromNodes(
        nodeOf(rows[0], 'r'),
        steps.map((s) => nodeOf(s, 's')),
      );
    });
  }

  async listRuns(
    options: { limit?: number; status?: RunRecord['status']; threadId?: string; protocol?: string } & CallerScope = {},
  ): Promise<RunSummary[]> {
    await this.#settled();
    const limit = Math.max(1, Math.min(1000, Math.trunc(options.limit ?? 50)));
    const params = {
      status: options.status ?? '',
      threadId: options.threadId ?? '',
      protocol: options.protocol ?? '',
      callerId: options.callerId ?? '',
      limit,
    };
    const rows = await this.#exec.read((q) => q(this.#Q.listRuns, params));
    return rows.map((r) => {
      const forkedFrom = json<RunSummary['forkedFrom']>(r.forkedFrom, undefined);
      return {
        id: str(r.id),
        query: str(r.query),
        status: str(r.status) as RunSummary['status'],
        startedAt: str(r.startedAt),
        durationMs: num(r.durationMs),
        score: optNum(r.score),
        threadId: str(r.threadId),
        protocol: str(r.protocol),
        callerId: str(r.callerId),
        ...(forkedFrom ? { forkedFrom } : {}),
      };
    });
  }

  async getProficiency(subject: string, kind: Proficiency['kind']): Promise<Proficiency | undefined> {
    await this.#settled();
    const rows = await this.#exec.read((q) => q(this.#Q.getProficiency, { id: proficiencyId(kind, subject) }));
    return rows[0] ? publicProficiency(proficiencyFromNode(nodeOf(rows[0], 'p'))) : undefined;
  }

  /**
   * From the view's window of recent runs (MemoryEntry, memoryWindow); older runs are not searched. A
   * deferred record is in the window from the moment it was handed over (run-recorder.ts).
   */
  async searchMemory(
    query: string,
    k: number,
    scope: CallerScope = {},
    options: MemorySearchOptions = {},
  ): Promise<MemoryHit[]> {
    if (k <= 0) return [];
    const view = await this.#cache.view();
    // Records not yet written are the runs' truth already: in the window at once (recorded again on commit, a no-op),
    // each once per view (~80 wait with 100 runs in flight, and every run searches).
    const pending = this.#recorder.pendingRuns();
    let windowed = this.#windowed.get(view);
    if (!windowed) this.#windowed.set(view, (windowed = new WeakSet()));
    for (const run of pending) {
      if (windowed.has(run)) continue;
      view.recordRun(memoryEntryOf(run));
      windowed.add(run);
    }
    const hits = view.searchMemory(query, k, scope, options.minRelevance);
    const limit = options.answerChars ?? Infinity;
    const wholeChars = (h: MemoryHit) => h.answerChars ?? h.answer.length;
    const short = hits.filter((h) => h.answer.length < Math.min(limit, wholeChars(h)));
    // More of an answer than the window keeps: from the waiting records, else from the database.
    const whole = new Map(pending.filter((r) => r.answer !== undefined).map((r) => [r.id, r.answer!] as const));
    const unknown = short.filter((h) => !whole.has(h.runId)).map((h) => h.runId);
    if (unknown.length)
      for (const r of await this.#exec.read((q) => q(this.#Q.answersOfRuns, { ids: unknown })))
        whole.set(str(r.id), str(r.answer));
    return hits.map((h) => {
      const chars = wholeChars(h);
      const answer = short.includes(h) ? (whole.get(h.runId) ?? h.answer) : h.answer;
      const { answerChars: _chars, ...hit } = h;
      if (answer.length > limit) return { ...hit, answer: answer.slice(0, limit), answerChars: chars };
      return answer.length < chars ? { ...hit, answer, answerChars: chars } : { ...hit, answer };
    });
  }

  async listApprovals(runId: string): Promise<ApprovalRecord[]> {
    const rows = await this.#exec.read((q) => q(this.#Q.listApprovals, { runId }));
    return rows.map((r) => approvalFromNode(nodeOf(r, 'a')));
  }

  async listDecisions(limit = 20, scope: CallerScope = {}): Promise<DecisionRecord[]> {
    const rows = await this.#exec.read((q) =>
      q(this.#Q.listDecisions, { limit: Math.max(1, Math.trunc(limit)), callerId: scope.callerId ?? '' }),
    );
    return rows.map((r) => decisionFromNode(nodeOf(r, 'd')));
  }

  async getDecision(id: string): Promise<DecisionRecord | undefined> {
    const rows = await this.#exec.read((q) => q(this.#Q.getDecision, { id }));
    return rows[0] ? decisionFromNode(nodeOf(rows[0], 'd')) : undefined;
  }

  async close(): Promise<void> {
    // Records already handed to recordRun are written first, as they were when each queued its own transaction.
    await this.#recorder.drain();
    return this.#exec.close();
  }
}
