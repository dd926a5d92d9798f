/**
 * The KnowledgeStore logic both backends share. A backend supplies its Cypher (one statement per
 * QueryName, in its own dialect) and an executor (how to run reads and atomic writes); everything
 * else (record mapping, ranking, learning from verifier scores) is here, so the two cannot drift.
 */
import type {
  ApprovalRecord,
  CallerScope,
  DecisionRecord,
  KnowledgeStore,
  MemoryHit,
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
import {
  applyObservation,
  applyTeamRun,
  emptyProficiency,
  observationsOf,
  specialistSearchText,
  teamId,
  teamOf,
  type ProficiencyTotals,
  type RegistryOptions,
} from './registry.ts';
import { KnowledgeView, type ViewSnapshot } from './view.ts';
import { MEMORY_WINDOW, memorySearchText, type MemoryEntry } from './run-memory.ts';
import {
  approvalFromNode,
  approvalParams,
  decisionFromNode,
  num,
  optNum,
  proficiencyFromNode,
  runFromNodes,
  sourceFromNode,
  specialistFromNode,
  str,
  teamFromNode,
  toolFromNode,
} from './rows.ts';
import type { CypherExecutor, Params, Row, RunStatement } from './cypher/executor.ts';
import type { QuerySet } from './cypher/queries.ts';

export type { CypherExecutor } from './cypher/executor.ts';

const node = (row: Record<string, unknown>, key: string) => row[key] as Record<string, never>;
const profId = (kind: Proficiency['kind'], subject: string) => `${kind}:${subject}`;

export interface ViewOptions {
  /**
   * How often the in-memory view (specialists, proficiencies, team statistics) re-reads the
   * database for changes made by other processes. Infinity when this process is the only writer
   * (embedded Kuzu holds a file lock); our own writes are always written through at once.
   */
  refreshMs: number;
  /**
   * How many of the most recent runs (by startedAt) the view holds for searchMemory; older runs
   * are not searched. Default MEMORY_WINDOW (5000).
   */
  memoryWindow?: number;
  now?: () => number;
}

const UNLINKED_RUNS = 10_000;
/** Most runs written in one group-commit transaction. */
export const MAX_RUN_BATCH = 256;

interface PendingRun {
  run: RunRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

// Plain `private` members (not #fields): callers may wrap the store with Object.create(store).
export class CypherStore implements KnowledgeStore {
  private viewPromise?: Promise<KnowledgeView>;
  private viewReadAt = 0;
  private refreshing = false;
  private registryWrites = 0;
  private runWrites = 0;
  /** recordRun calls waiting for the next group-commit batch. */
  private pendingRuns: PendingRun[] = [];
  /** The batch writer, while it runs (it stops when nothing is pending). */
  private flushing?: Promise<void>;
  /**
   * Runs with approvals/decisions recorded by this process, so recordRun links them; other runs
   * skip those two statements. Bounded: the oldest entries (runs never recorded) are dropped.
   */
  private readonly unlinked = new Map<string, { approvals?: boolean; decisions?: boolean }>();
  private readonly now: () => number;
  private readonly refreshMs: number;
  private readonly memoryWindow: number;

  constructor(
    private readonly exec: CypherExecutor,
    private readonly Q: QuerySet,
    private readonly options: RegistryOptions,
    view: ViewOptions = { refreshMs: Infinity },
  ) {
    this.now = view.now ?? Date.now;
    this.refreshMs = view.refreshMs;
    this.memoryWindow = view.memoryWindow ?? MEMORY_WINDOW;
    if (!(Number.isInteger(this.memoryWindow) && this.memoryWindow >= 0)) {
      throw new RangeError(`memoryWindow must be a whole number >= 0, got ${view.memoryWindow}`);
    }
  }

  // ── In-memory view ──────────────────────────────────────────────────────

  /** The view, loaded on first use; past refreshMs a re-read is merged in the background. */
  private view(): Promise<KnowledgeView> {
    if (!this.viewPromise) {
      const startedAt = this.now();
      const loading = this.readSnapshot().then((snapshot) => {
        this.viewReadAt = startedAt;
        return new KnowledgeView(snapshot, { memoryWindow: this.memoryWindow });
      });
      // A failed load is not kept: the next read tries again.
      loading.catch(() => {
        if (this.viewPromise === loading) this.viewPromise = undefined;
      });
      this.viewPromise = loading;
    } else if (!this.refreshing && this.now() - this.viewReadAt >= this.refreshMs) {
      this.refresh(this.viewPromise);
    }
    return this.viewPromise;
  }

  private refresh(current: Promise<KnowledgeView>): void {
    this.refreshing = true;
    const startedAt = this.now();
    const writes = this.registryWrites;
    const runWrites = this.runWrites;
    Promise.all([current, this.readSnapshot()])
      .then(([view, snapshot]) => view.merge(snapshot, { specialists: writes === this.registryWrites, runs: runWrites === this.runWrites }))
      .catch(() => undefined) // keep serving the current view; retried after refreshMs
      .finally(() => {
        this.viewReadAt = startedAt;
        this.refreshing = false;
      });
  }

  private readSnapshot(): Promise<ViewSnapshot> {
    return this.exec.read(async (q) => {
      const specialists = (await q(this.Q.listSpecialists)).map((r) => specialistFromNode(node(r, 's')));
      const proficiencies = (await q(this.Q.listProficiencies)).map((r) => {
        const p = node(r, 'p');
        return { id: str(p.id), totals: proficiencyFromNode(p) };
      });
      const teams = (await q(this.Q.listTeams)).map((r) => ({
        id: str(r.id),
        callerId: str(r.callerId),
        pattern: str(r.pattern),
        uses: num(r.uses),
        successes: num(r.successes),
        avgScore: num(r.avgScore),
      }));
      const runs = this.memoryWindow === 0 ? [] : (await q(this.Q.recentRuns, { limit: this.memoryWindow })).map(memoryEntryFromRow);
      return { specialists, proficiencies, teams, runs };
    });
  }

  private noteUnlinked(runId: string, kind: 'approvals' | 'decisions'): void {
    const entry = this.unlinked.get(runId) ?? {};
    entry[kind] = true;
    this.unlinked.set(runId, entry);
    if (this.unlinked.size > UNLINKED_RUNS) this.unlinked.delete(this.unlinked.keys().next().value!);
  }

  /** Applies a committed write of ours to the view (after its load, if it is still loading). */
  private async writeThrough(apply: (view: KnowledgeView) => void): Promise<void> {
    const pending = this.viewPromise;
    if (!pending) return;
    let view: KnowledgeView;
    try {
      view = await pending;
    } catch {
      return; // the next load reads the committed write
    }
    apply(view);
  }

  // ── Registry ────────────────────────────────────────────────────────────

  async upsertSource(source: SourceRecord): Promise<void> {
    await this.exec.write((q) => q(this.Q.upsertSource, { ...source, error: source.error ?? null }));
  }

  async getSource(id: string): Promise<SourceRecord | undefined> {
    const rows = await this.exec.read((q) => q(this.Q.getSource, { id }));
    return rows[0] ? sourceFromNode(node(rows[0], 's')) : undefined;
  }

  async upsertSpecialists(specialists: SpecialistRecord[]): Promise<void> {
    if (specialists.length === 0) return;
    this.registryWrites++;
    const params = specialists.map((s) => ({
          id: s.id,
          name: s.name,
          description: s.description,
          kind: s.kind,
          domains: JSON.stringify(s.domains),
          prompt: s.prompt,
          endpoint: s.endpoint,
          modelRole: s.modelRole,
          tools: JSON.stringify(s.tools),
          sourceId: s.sourceId,
          available: s.available,
          unavailableReason: s.unavailableReason ?? null,
          searchText: specialistSearchText(s),
    }));
    await this.exec.write(async (q) => {
      for (const [i, s] of specialists.entries()) {
        await q(this.Q.upsertSpecialist, params[i]);
        await q(this.Q.unlinkSpecialistSource, { id: s.id });
        await q(this.Q.linkSpecialistSource, { id: s.id, sourceId: s.sourceId });
        await q(this.Q.unlinkSpecialistTools, { id: s.id });
        if (s.tools.length) await q(this.Q.linkSpecialistTools, { id: s.id, tools: s.tools });
      }
    });
    // Records exactly as they read back (the statement's properties are the node's).
    await this.writeThrough((view) => view.upsertSpecialists(params.map((p) => specialistFromNode(p as unknown as Record<string, never>))));
  }

  async upsertTools(tools: ToolRecord[]): Promise<void> {
    if (tools.length === 0) return;
    await this.exec.write(async (q) => {
      for (const t of tools) {
        await q(this.Q.upsertTool, {
          id: t.id,
          server: t.server,
          name: t.name,
          description: t.description,
          inputSchema: JSON.stringify(t.inputSchema ?? {}),
          annotations: JSON.stringify(t.annotations ?? {}),
          available: t.available,
          sourceId: t.sourceId ?? null,
        });
        if (t.sourceId) await q(this.Q.linkToolSource, { id: t.id, sourceId: t.sourceId });
        await q(this.Q.linkToolUsers, { id: t.id, quoted: JSON.stringify(t.id) });
      }
    });
  }

  async markGone(sourceId: string, keepSpecialistIds: string[], keepToolIds: string[]): Promise<void> {
    this.registryWrites++;
    await this.exec.write(async (q) => {
      await q(this.Q.markSpecialistsGone, { sourceId, keep: keepSpecialistIds });
      await q(this.Q.markToolsGone, { sourceId, keep: keepToolIds });
    });
    await this.writeThrough((view) => view.markGone(sourceId, keepSpecialistIds));
  }

  async listSpecialists(filter?: SpecialistFilter): Promise<SpecialistRecord[]> {
    return (await this.view()).listSpecialists(filter);
  }

  async getSpecialist(id: string): Promise<SpecialistRecord | undefined> {
    return (await this.view()).getSpecialist(id);
  }

  async listTools(server?: string): Promise<ToolRecord[]> {
    const rows = server === undefined ? await this.exec.read((q) => q(this.Q.listTools)) : await this.exec.read((q) => q(this.Q.listToolsOfServer, { server }));
    return rows.map((r) => toolFromNode(node(r, 't')));
  }

  async getTool(id: string): Promise<ToolRecord | undefined> {
    const rows = await this.exec.read((q) => q(this.Q.getTool, { id }));
    return rows[0] ? toolFromNode(node(rows[0], 't')) : undefined;
  }

  async retrieveSpecialists(query: string, k: number): Promise<SpecialistCandidate[]> {
    if (k <= 0) return [];
    return (await this.view()).rank(query, k);
  }

  // ── Execution memory ────────────────────────────────────────────────────

  async findTeamConfig(query: string, scope: CallerScope = {}): Promise<TeamConfig | undefined> {
    const view = await this.view();
    const best = view.pickTeam(query, this.options, scope);
    if (!best) return undefined;
    let team = view.fullTeam(best.id);
    if (!team) {
      const rows = await this.exec.read((q) => q(this.Q.getTeam, { id: best.id }));
      if (!rows[0]) return undefined;
      team = teamFromNode(node(rows[0], 't'));
      view.applyTeam(team);
    }
    // The view's copy stays private: callers get their own.
    return structuredClone(team);
  }

  /**
   * Group commit: a record arriving while a batch is being written waits for the next batch, and
   * each batch is one write transaction with one statement per kind of write (UNWIND over the
   * batch), team and proficiency statistics aggregated here first so each key is written once.
   * The promise settles when the record's batch is committed (or has failed): a record is findable
   * (getRun, searchMemory, findTeamConfig) as soon as its promise resolves.
   */
  recordRun(run: RunRecord): Promise<void> {
    const invalid = invalidRunRecord(run);
    if (invalid) return Promise.reject(new TypeError(`recordRun: ${invalid}`));
    return new Promise<void>((resolve, reject) => {
      this.pendingRuns.push({ run, resolve, reject });
      this.flushing ??= this.flushRuns();
    });
  }

  /** Writes batches until nothing is pending; never rejects (every outcome goes to its caller). */
  private async flushRuns(): Promise<void> {
    try {
      while (this.pendingRuns.length > 0) await this.writeBatch(this.takeBatch());
    } finally {
      this.flushing = undefined;
    }
  }

  /**
   * The oldest pending records, at most MAX_RUN_BATCH, one per run id and step key (a repeat waits
   * for the next batch), so a batch holds nothing that conflicts within it.
   */
  private takeBatch(): PendingRun[] {
    const ids = new Set<string>();
    // Step keys are `${runId}/${stepId}`: run "a" step "b/c" and run "a/b" step "c" would collide.
    const stepKeys = new Set<string>();
    const batch: PendingRun[] = [];
    const rest: PendingRun[] = [];
    for (const p of this.pendingRuns) {
      const keys = p.run.steps.map((s) => `${p.run.id}/${s.id}`);
      if (batch.length < MAX_RUN_BATCH && !ids.has(p.run.id) && !keys.some((k) => stepKeys.has(k))) {
        ids.add(p.run.id);
        for (const k of keys) stepKeys.add(k);
        batch.push(p);
      } else rest.push(p);
    }
    this.pendingRuns = rest;
    return batch;
  }

  /** One transaction for the batch; if it fails, each record alone, so one bad record fails only its caller. */
  private async writeBatch(batch: PendingRun[]): Promise<void> {
    try {
      await this.writeRuns(batch.map((p) => p.run));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) {
        try {
          await this.writeRuns([p.run]);
          p.resolve();
        } catch (own) {
          p.reject(own);
        }
      }
      return;
    }
    for (const p of batch) p.resolve();
  }

  /** Records distinct runs in one write transaction. */
  private async writeRuns(runs: RunRecord[]): Promise<void> {
    // The view is read before the transaction: on Kuzu its load would queue behind our own write.
    const view = await this.view().catch(() => undefined);
    const serial = this.exec.serialWrites ? view : undefined;
    const links = new Map(runs.map((r) => [r.id, this.unlinked.get(r.id)] as const));
    const runRows = runs.map(runParams);
    const steps = runs.flatMap((run) =>
      run.steps.map((s, idx) => ({
        id: `${run.id}/${s.id}`,
        runId: run.id,
        stepId: s.id,
        idx,
        specialist: s.specialist,
        objective: s.objective,
        status: s.status,
        output: s.output ?? '',
        error: s.error ?? '',
        durationMs: s.durationMs,
        tokens: s.tokens,
        costUsd: s.costUsd,
        toolCalls: JSON.stringify(s.toolCalls),
      })),
    );
    const calls = runs.flatMap((run) => run.steps.flatMap((s) => s.toolCalls.map((c) => ({ stepId: `${run.id}/${s.id}`, tool: c.tool, status: c.status }))));
    let learnt: Learnt | undefined;
    let applied = false;
    this.runWrites++;
    try {
      await this.exec.write(async (q) => {
        learnt = undefined; // a retried transaction starts over
        // A run recorded again (same id) replaces its record but teaches nothing twice.
        const seen = new Set((await q(this.Q.seenRuns, { ids: runRows.map((r) => r.id) })).map((r) => str(r.id)));
        const fresh = seen.size ? runs.filter((r) => !seen.has(r.id)) : runs;
        // Inserts first, statistics (updates of existing rows) last: Kuzu 0.11.3 does not always
        // roll back an update cleanly when a later statement fails (the next transaction touching
        // that row then fails with a write-write conflict, or the process crashes).
        if (fresh.length) await q(this.Q.createRuns, { runs: seen.size ? runRows.filter((r) => !seen.has(r.id as string)) : runRows });
        if (seen.size) {
          await q(this.Q.updateRuns, { runs: runRows.filter((r) => seen.has(r.id as string)) });
          await q(this.Q.deleteStepsOfRuns, { runIds: [...seen] });
        }
        if (steps.length) await q(this.Q.createSteps, { steps });
        if (calls.length) await q(this.Q.linkStepTools, { calls });
        // Approvals and decisions recorded before the run (by this process) are linked to it now.
        for (const run of runs) {
          if (seen.has(run.id) || links.get(run.id)?.approvals) await q(this.Q.linkRunApprovals, { runId: run.id });
          if (seen.has(run.id) || links.get(run.id)?.decisions) await q(this.Q.linkRunDecisions, { runId: run.id });
        }
        if (fresh.length) learnt = await this.learn(q, fresh, view, serial);
        // One writer at a time: the next transaction computes from the view, so update it before that starts.
        if (serial && learnt) {
          applyLearnt(serial, learnt);
          applied = true;
        }
      });
    } catch (err) {
      // Only the commit can fail after the view was updated: reload what is really stored.
      if (applied) this.viewPromise = undefined;
      throw err;
    }
    for (const run of runs) this.unlinked.delete(run.id);
    const committed = learnt as Learnt | undefined;
    await this.writeThrough((v) => {
      if (committed && !applied) applyLearnt(v, committed);
      for (const run of runs) v.recordRun({ id: run.id, callerId: run.callerId, query: run.query, answer: run.answer ?? '', score: run.score, startedAt: run.startedAt });
    });
  }

  /**
   * Updates TeamConfig and proficiency statistics from the runs' verifier scores, in the runs'
   * order, and writes each team and proficiency once with its final totals; returns what it wrote.
   */
  private async learn(q: RunStatement, runs: RunRecord[], view: KnowledgeView | undefined, serial?: KnowledgeView): Promise<Learnt> {
    const learnt: Learnt = { teams: [], proficiencies: [] };
    const teamRuns = runs.flatMap((run) => {
      const team = teamOf(run);
      return team ? [{ run, team }] : [];
    });
    if (teamRuns.length) {
      // A team the router reused counts when it exists (the view knows most; the rest are looked up).
      const claimed = [...new Set(teamRuns.flatMap(({ run }) => (run.teamConfigId === undefined ? [] : [run.teamConfigId])))];
      const existing = new Set(claimed.filter((id) => view?.hasTeam(id)));
      const unknown = claimed.filter((id) => !existing.has(id));
      if (unknown.length) for (const r of await q(this.Q.teamsByIds, { ids: unknown })) existing.add(str(node(r, 't').id));
      const idOf = (run: RunRecord, team: { pattern: string; specialists: string[] }) =>
        run.teamConfigId !== undefined && existing.has(run.teamConfigId) ? run.teamConfigId : teamId(team.pattern, team.specialists, run.callerId);
      const ids = [...new Set(teamRuns.map(({ run, team }) => idOf(run, team)))].sort();
      const stored = new Map<string, TeamConfig>();
      if (serial) {
        // A serial writer knows from its view whether a team exists, and usually holds it whole.
        const unread: string[] = [];
        for (const id of ids) {
          if (!serial.hasTeam(id)) continue;
          const whole = serial.fullTeam(id);
          if (whole) stored.set(id, whole);
          else unread.push(id);
        }
        if (unread.length) for (const r of await q(this.Q.teamsByIds, { ids: unread })) stored.set(str(node(r, 't').id), teamFromNode(node(r, 't')));
      } else {
        // Lock-and-read (sorted, so two processes lock in the same order): concurrent batches of
        // the same team (Neo4j) serialise here instead of losing updates.
        for (const r of await q(this.Q.lockTeams, { ids })) stored.set(str(node(r, 't').id), teamFromNode(node(r, 't')));
      }
      const next = new Map<string, TeamConfig>();
      const links: { runId: string; teamId: string }[] = [];
      for (const { run, team } of teamRuns) {
        const id = idOf(run, team);
        const current = next.get(id) ?? stored.get(id);
        const base: TeamConfig =
          current && current.uses > 0
            ? current
            : { id, callerId: run.callerId, pattern: team.pattern, specialists: team.specialists, plan: run.plan!, uses: 0, successes: 0, avgScore: 0 };
        next.set(id, applyTeamRun(base, run));
        links.push({ runId: run.id, teamId: id });
      }
      learnt.teams = [...next.values()];
      await q(this.Q.upsertTeams, {
        teams: learnt.teams.map((t) => ({
          id: t.id,
          callerId: t.callerId ?? '',
          pattern: t.pattern,
          specialists: JSON.stringify(t.specialists),
          plan: JSON.stringify(t.plan),
          uses: t.uses,
          successes: t.successes,
          avgScore: t.avgScore,
        })),
      });
      await q(this.Q.linkRunTeams, { links });
    }
    const observations = runs.flatMap(observationsOf);
    if (observations.length === 0) return learnt;
    const ids = [...new Set(observations.map((o) => o.specialistId))];
    // Domains from the view when it knows every specialist (it always has this process's ingests).
    const domainsOf =
      view && ids.every((id) => view.domainsOf(id) !== undefined)
        ? new Map(ids.map((id) => [id, view.domainsOf(id)!] as const))
        : new Map(
            (await q(this.Q.specialistsByIds, { ids })).map((r) => {
              const s = specialistFromNode(node(r, 's'));
              return [s.id, s.domains as readonly string[]] as const;
            }),
          );
    const keys = new Set<string>();
    for (const { specialistId } of observations) {
      keys.add(profId('specialist', specialistId));
      for (const domain of domainsOf.get(specialistId) ?? []) keys.add(profId('domain', domain));
    }
    // Lock-and-read (MERGE creates what is missing; sorted), so concurrent writers never lose an
    // update; a serial writer's view holds every proficiency already.
    const totals = new Map<string, ProficiencyTotals>();
    if (serial) {
      for (const key of keys) {
        const p = serial.proficiency(key);
        if (p) totals.set(key, p);
      }
    } else {
      for (const r of await q(this.Q.lockProficiencies, { ids: [...keys].sort() })) totals.set(str(node(r, 'p').id), proficiencyFromNode(node(r, 'p')));
    }
    const bump = (kind: Proficiency['kind'], subject: string, o: (typeof observations)[number]['observation']) => {
      const key = profId(kind, subject);
      const before = totals.get(key);
      // A freshly merged node has no counts yet: start from an empty record.
      const base = before && before.runs > 0 ? before : emptyProficiency(subject, kind);
      totals.set(key, applyObservation({ ...base, subject, kind }, o));
    };
    for (const { specialistId, observation } of observations) {
      bump('specialist', specialistId, observation);
      for (const domain of domainsOf.get(specialistId) ?? []) bump('domain', domain, observation);
    }
    const rows = [...keys].map((id) => ({ id, ...totals.get(id)! }));
    await q(this.Q.upsertProficiencies, { rows });
    learnt.proficiencies = rows.map(({ id, ...totals }) => ({ id, totals }));
    return learnt;
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return this.exec.read(async (q) => {
      const rows = await q(this.Q.getRun, { id });
      if (!rows[0]) return undefined;
      const steps = await q(this.Q.stepsOfRun, { runId: id });
      return runFromNodes(node(rows[0], 'r'), steps.map((s) => node(s, 's')));
    });
  }

  async listRuns(options: { limit?: number; status?: RunRecord['status']; threadId?: string } & CallerScope = {}): Promise<RunSummary[]> {
    const limit = Math.max(1, Math.min(1000, Math.trunc(options.limit ?? 50)));
    const params = { status: options.status ?? '', threadId: options.threadId ?? '', callerId: options.callerId ?? '', limit };
    const rows = await this.exec.read((q) => q(this.Q.listRuns, params));
    return rows.map((r) => ({
      id: str(r.id),
      query: str(r.query),
      status: str(r.status) as RunSummary['status'],
      startedAt: str(r.startedAt),
      durationMs: num(r.durationMs),
      score: optNum(r.score),
    }));
  }

  async getProficiency(subject: string, kind: Proficiency['kind']): Promise<Proficiency | undefined> {
    const rows = await this.exec.read((q) => q(this.Q.getProficiency, { id: profId(kind, subject) }));
    return rows[0] ? publicProficiency(proficiencyFromNode(node(rows[0], 'p'))) : undefined;
  }

  /** From the view's window of recent runs (MemoryEntry, memoryWindow); older runs are not searched. */
  async searchMemory(query: string, k: number, scope: CallerScope = {}): Promise<MemoryHit[]> {
    if (k <= 0) return [];
    return (await this.view()).searchMemory(query, k, scope);
  }

  async recordApproval(approval: ApprovalRecord): Promise<void> {
    await this.exec.write(async (q) => {
      await q(this.Q.upsertApproval, approvalParams(approval));
      await q(this.Q.linkRunApprovals, { runId: approval.runId });
    });
    this.noteUnlinked(approval.runId, 'approvals');
  }

  async listApprovals(runId: string): Promise<ApprovalRecord[]> {
    const rows = await this.exec.read((q) => q(this.Q.listApprovals, { runId }));
    return rows.map((r) => approvalFromNode(node(r, 'a')));
  }

  async recordDecision(decision: DecisionRecord): Promise<void> {
    await this.exec.write(async (q) => {
      await q(this.Q.upsertDecision, { ...decision, callerId: decision.callerId ?? '', verdict: JSON.stringify(decision.verdict) });
      await q(this.Q.linkRunDecisions, { runId: decision.runId });
    });
    this.noteUnlinked(decision.runId, 'decisions');
  }

  async listDecisions(limit = 20, scope: CallerScope = {}): Promise<DecisionRecord[]> {
    const rows = await this.exec.read((q) => q(this.Q.listDecisions, { limit: Math.max(1, Math.trunc(limit)), callerId: scope.callerId ?? '' }));
    return rows.map((r) => decisionFromNode(node(r, 'd')));
  }

  async close(): Promise<void> {
    // Records already handed to recordRun are written first, as they were when each queued its own transaction.
    while (this.flushing) await this.flushing;
    return this.exec.close();
  }
}

function runParams(run: RunRecord): Params {
  return {
    id: run.id,
    threadId: run.threadId,
    query: run.query,
    protocol: run.protocol,
    callerId: run.callerId,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    status: run.status,
    answer: run.answer ?? null,
    error: run.error ?? null,
    tokens: run.tokens,
    costUsd: run.costUsd,
    score: run.score,
    plan: run.plan ? JSON.stringify(run.plan) : null,
    teamConfigId: run.teamConfigId ?? null,
    searchText: memorySearchText(run),
  };
}

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * Why a run record cannot be stored, or undefined. Checked before it joins a batch, so a record of
 * the wrong shape fails its own caller with a clear message and never the batch it would join.
 */
function invalidRunRecord(run: RunRecord): string | undefined {
  if (typeof run !== 'object' || run === null) return 'a run record must be an object';
  const at = `run ${JSON.stringify(run.id)}`;
  if (!isText(run.id) || run.id === '') return 'a run record needs a non-empty string id';
  for (const key of ['threadId', 'query', 'protocol', 'callerId', 'startedAt', 'status'] as const) {
    if (!isText(run[key])) return `${at}: ${key} must be a string`;
  }
  for (const key of ['answer', 'error', 'teamConfigId'] as const) {
    if (run[key] !== undefined && !isText(run[key])) return `${at}: ${key} must be a string when set`;
  }
  for (const key of ['durationMs', 'tokens'] as const) if (!isFiniteNumber(run[key])) return `${at}: ${key} must be a finite number`;
  for (const key of ['costUsd', 'score'] as const) {
    if (run[key] !== null && run[key] !== undefined && !isFiniteNumber(run[key])) return `${at}: ${key} must be a finite number or null`;
  }
  if (!Array.isArray(run.steps)) return `${at}: steps must be an array`;
  const stepIds = new Set<string>();
  for (const s of run.steps) {
    const where = `${at}, step ${JSON.stringify(s?.id)}`;
    if (typeof s !== 'object' || s === null || !isText(s.id) || s.id === '') return `${at}: every step needs a non-empty string id`;
    if (stepIds.has(s.id)) return `${where}: two steps have this id`;
    stepIds.add(s.id);
    for (const key of ['specialist', 'objective', 'status'] as const) if (!isText(s[key])) return `${where}: ${key} must be a string`;
    for (const key of ['output', 'error'] as const) if (s[key] !== undefined && !isText(s[key])) return `${where}: ${key} must be a string when set`;
    for (const key of ['durationMs', 'tokens'] as const) if (!isFiniteNumber(s[key])) return `${where}: ${key} must be a finite number`;
    if (s.costUsd !== null && s.costUsd !== undefined && !isFiniteNumber(s.costUsd)) return `${where}: costUsd must be a finite number or null`;
    if (!Array.isArray(s.toolCalls) || !s.toolCalls.every((c) => typeof c === 'object' && c !== null && isText(c.tool) && isText(c.status))) {
      return `${where}: toolCalls must be a list of { tool, status }`;
    }
  }
  return undefined;
}

function memoryEntryFromRow(r: Row): MemoryEntry {
  return { id: str(r.id), callerId: str(r.callerId), query: str(r.query), answer: str(r.answer), score: optNum(r.score), startedAt: str(r.startedAt) };
}

/** What a batch of recorded runs taught, as committed: written through to the view. */
interface Learnt {
  teams: TeamConfig[];
  proficiencies: { id: string; totals: ProficiencyTotals }[];
}

function applyLearnt(view: KnowledgeView, learnt: Learnt): void {
  for (const team of learnt.teams) view.applyTeam(team);
  for (const p of learnt.proficiencies) view.applyProficiency(p.id, p.totals);
}

function publicProficiency(p: ProficiencyTotals): Proficiency {
  const { costRuns: _costRuns, ...rest } = p;
  return rest;
}

