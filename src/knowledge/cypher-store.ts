/**
 * The KnowledgeStore logic both backends share. A backend supplies its Cypher (one statement per
 * QueryName, in its own dialect) and an executor (how to run reads and atomic writes); everything
 * else (record mapping, ranking, learning from verifier scores) is here, so the two cannot drift.
 */
import type {
  ApprovalRecord,
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
  ftsQueryText,
  matchesFilter,
  observationsOf,
  pickTeam,
  rankCandidates,
  specialistSearchText,
  teamId,
  teamOf,
  type ProficiencyTotals,
  type RegistryOptions,
} from './registry.ts';
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

export type Params = Record<string, unknown>;
export type Row = Record<string, unknown>;
/** Runs one parameterised statement; rows are plain objects (nodes as their property objects). */
export type RunStatement = (statement: string, params?: Params) => Promise<Row[]>;

export interface CypherExecutor {
  /** Consistent read. */
  read<T>(fn: (run: RunStatement) => Promise<T>): Promise<T>;
  /** Atomic write: all statements or none. May run fn again on a transient error (so fn only touches the database). */
  write<T>(fn: (run: RunStatement) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The statements a backend provides, each in its own dialect, with the same parameters and result columns. */
export const QUERY_NAMES = [
  'upsertSource',
  'getSource',
  'upsertSpecialist',
  'unlinkSpecialistSource',
  'linkSpecialistSource',
  'unlinkSpecialistTools',
  'linkSpecialistTools',
  'linkToolUsers',
  'upsertTool',
  'linkToolSource',
  'markSpecialistsGone',
  'markToolsGone',
  'listSpecialists',
  'getSpecialist',
  'specialistsByIds',
  'listTools',
  'listToolsOfServer',
  'getTool',
  'searchSpecialists',
  'proficienciesByIds',
  'getProficiency',
  'upsertProficiency',
  'upsertProficiencies',
  'lockProficiencies',
  'lockTeam',
  'listTeams',
  'getTeam',
  'upsertTeam',
  'linkRunTeam',
  'runExists',
  'upsertRun',
  'deleteSteps',
  'createSteps',
  'clearUnknownStepCosts',
  'linkStepSpecialists',
  'linkStepTools',
  'linkRunApprovals',
  'linkRunDecisions',
  'getRun',
  'stepsOfRun',
  'listRuns',
  'searchRuns',
  'upsertApproval',
  'listApprovals',
  'upsertDecision',
  'listDecisions',
] as const;
export type QueryName = (typeof QUERY_NAMES)[number];
export type QuerySet = Record<QueryName, string>;

const node = (row: Record<string, unknown>, key: string) => row[key] as Record<string, never>;
const profId = (kind: Proficiency['kind'], subject: string) => `${kind}:${subject}`;

export class CypherStore implements KnowledgeStore {
  constructor(
    private readonly exec: CypherExecutor,
    private readonly Q: QuerySet,
    private readonly options: RegistryOptions,
  ) {}

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
    await this.exec.write(async (q) => {
      for (const s of specialists) {
        await q(this.Q.upsertSpecialist, {
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
        });
        await q(this.Q.unlinkSpecialistSource, { id: s.id });
        await q(this.Q.linkSpecialistSource, { id: s.id, sourceId: s.sourceId });
        await q(this.Q.unlinkSpecialistTools, { id: s.id });
        if (s.tools.length) await q(this.Q.linkSpecialistTools, { id: s.id, tools: s.tools });
      }
    });
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
    await this.exec.write(async (q) => {
      await q(this.Q.markSpecialistsGone, { sourceId, keep: keepSpecialistIds });
      await q(this.Q.markToolsGone, { sourceId, keep: keepToolIds });
    });
  }

  async listSpecialists(filter?: SpecialistFilter): Promise<SpecialistRecord[]> {
    const rows = await this.exec.read((q) => q(this.Q.listSpecialists));
    return rows.map((r) => specialistFromNode(node(r, 's'))).filter((s) => matchesFilter(s, filter));
  }

  async getSpecialist(id: string): Promise<SpecialistRecord | undefined> {
    const rows = await this.exec.read((q) => q(this.Q.getSpecialist, { id }));
    return rows[0] ? specialistFromNode(node(rows[0], 's')) : undefined;
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
    const text = ftsQueryText(query);
    if (!text || k <= 0) return [];
    return this.exec.read(async (q) => {
      // Over-fetch: unavailable specialists are dropped and the record may reorder the top.
      const hits = await q(this.Q.searchSpecialists, { q: text, limit: Math.max(k * 4, 50) });
      if (hits.length === 0) return [];
      const ids = hits.map((h) => str(h.id));
      const specialists = new Map(
        (await q(this.Q.specialistsByIds, { ids })).map((r) => {
          const s = specialistFromNode(node(r, 's'));
          return [s.id, s] as const;
        }),
      );
      const profs = await q(this.Q.proficienciesByIds, { ids: ids.map((id) => profId('specialist', id)) });
      const bySubject = new Map(profs.map((r) => {
        const p = proficiencyFromNode(node(r, 'p'));
        return [p.subject, publicProficiency(p)] as const;
      }));
      const scored = hits.flatMap((h) => {
        const specialist = specialists.get(str(h.id));
        return specialist ? [{ specialist, textScore: num(h.score) }] : [];
      });
      return rankCandidates(scored, bySubject, k);
    });
  }

  // ── Execution memory ────────────────────────────────────────────────────

  async findTeamConfig(query: string): Promise<TeamConfig | undefined> {
    return this.exec.read(async (q) => {
      const stats = (await q(this.Q.listTeams)).map((r) => ({
        id: str(r.id),
        pattern: str(r.pattern),
        uses: num(r.uses),
        successes: num(r.successes),
        avgScore: num(r.avgScore),
      }));
      const best = pickTeam(query, stats, this.options);
      if (!best) return undefined;
      const rows = await q(this.Q.getTeam, { id: best.id });
      return rows[0] ? teamFromNode(node(rows[0], 't')) : undefined;
    });
  }

  async recordRun(run: RunRecord): Promise<void> {
    await this.exec.write(async (q) => {
      // A run recorded again (same id) replaces its record but teaches nothing twice.
      const seen = (await q(this.Q.runExists, { id: run.id })).length > 0;
      await q(this.Q.upsertRun, runParams(run));
      if (seen) await q(this.Q.deleteSteps, { runId: run.id });
      if (run.steps.length) {
        await q(this.Q.createSteps, {
          runId: run.id,
          steps: run.steps.map((s, idx) => ({
            id: `${run.id}/${s.id}`,
            stepId: s.id,
            idx,
            specialist: s.specialist,
            objective: s.objective,
            status: s.status,
            output: s.output ?? '',
            error: s.error ?? '',
            durationMs: s.durationMs,
            tokens: s.tokens,
            costUsd: s.costUsd ?? -1,
            toolCalls: JSON.stringify(s.toolCalls),
          })),
        });
        // Struct fields bind with one type per list: a null cost is -1 in transit, null at rest.
        const unknownCost = run.steps.filter((s) => s.costUsd === null).map((s) => `${run.id}/${s.id}`);
        if (unknownCost.length) await q(this.Q.clearUnknownStepCosts, { ids: unknownCost });
        await q(this.Q.linkStepSpecialists, { links: run.steps.map((s) => ({ stepId: `${run.id}/${s.id}`, specialist: s.specialist })) });
        const calls = run.steps.flatMap((s) => s.toolCalls.map((c) => ({ stepId: `${run.id}/${s.id}`, tool: c.tool, status: c.status })));
        if (calls.length) await q(this.Q.linkStepTools, { calls });
      }
      await q(this.Q.linkRunApprovals, { runId: run.id });
      await q(this.Q.linkRunDecisions, { runId: run.id });
      if (!seen) await this.learn(q, run);
    });
  }

  /** Updates TeamConfig and proficiency statistics from the run's verifier score. */
  private async learn(q: RunStatement, run: RunRecord): Promise<void> {
    const team = teamOf(run);
    if (team) {
      const reusedId = run.teamConfigId && (await q(this.Q.getTeam, { id: run.teamConfigId })).length ? run.teamConfigId : undefined;
      const id = reusedId ?? teamId(team.pattern, team.specialists);
      // Lock-and-read: concurrent runs of the same team (Neo4j) serialise here instead of losing updates.
      const existing = await q(this.Q.lockTeam, { id });
      const stored = existing[0] ? teamFromNode(node(existing[0], 't')) : undefined;
      const current: TeamConfig =
        stored && stored.uses > 0
          ? stored
          : { id, pattern: team.pattern, specialists: team.specialists, plan: run.plan!, uses: 0, successes: 0, avgScore: 0 };
      const next = applyTeamRun(current, run);
      await q(this.Q.upsertTeam, { ...next, specialists: JSON.stringify(next.specialists), plan: JSON.stringify(next.plan) });
      await q(this.Q.linkRunTeam, { runId: run.id, teamId: id });
    }
    const observations = observationsOf(run);
    if (observations.length === 0) return;
    const ids = [...new Set(observations.map((o) => o.specialistId))];
    const domainsOf = new Map(
      (await q(this.Q.specialistsByIds, { ids })).map((r) => {
        const s = specialistFromNode(node(r, 's'));
        return [s.id, s.domains] as const;
      }),
    );
    const keys = new Set<string>();
    for (const { specialistId } of observations) {
      keys.add(profId('specialist', specialistId));
      for (const domain of domainsOf.get(specialistId) ?? []) keys.add(profId('domain', domain));
    }
    // Lock-and-read (MERGE creates what is missing), so concurrent runs never lose an update.
    const stored = await q(this.Q.lockProficiencies, { ids: [...keys] });
    const totals = new Map(stored.map((r) => [str(node(r, 'p').id), proficiencyFromNode(node(r, 'p'))] as const));
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
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return this.exec.read(async (q) => {
      const rows = await q(this.Q.getRun, { id });
      if (!rows[0]) return undefined;
      const steps = await q(this.Q.stepsOfRun, { runId: id });
      return runFromNodes(node(rows[0], 'r'), steps.map((s) => node(s, 's')));
    });
  }

  async listRuns(options: { limit?: number; status?: RunRecord['status']; threadId?: string } = {}): Promise<RunSummary[]> {
    const limit = Math.max(1, Math.min(1000, Math.trunc(options.limit ?? 50)));
    const rows = await this.exec.read((q) => q(this.Q.listRuns, { status: options.status ?? '', threadId: options.threadId ?? '', limit }));
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

  async searchMemory(query: string, k: number): Promise<MemoryHit[]> {
    const text = ftsQueryText(query);
    if (!text || k <= 0) return [];
    const rows = await this.exec.read((q) => q(this.Q.searchRuns, { q: text, limit: k }));
    const max = Math.max(0, ...rows.map((r) => num(r.score)));
    return rows.map((r) => ({
      runId: str(r.id),
      query: str(r.query),
      answer: str(r.answer),
      score: optNum(r.runScore),
      relevance: max > 0 ? num(r.score) / max : 0,
    }));
  }

  async recordApproval(approval: ApprovalRecord): Promise<void> {
    await this.exec.write(async (q) => {
      await q(this.Q.upsertApproval, approvalParams(approval));
      await q(this.Q.linkRunApprovals, { runId: approval.runId });
    });
  }

  async listApprovals(runId: string): Promise<ApprovalRecord[]> {
    const rows = await this.exec.read((q) => q(this.Q.listApprovals, { runId }));
    return rows.map((r) => approvalFromNode(node(r, 'a')));
  }

  async recordDecision(decision: DecisionRecord): Promise<void> {
    await this.exec.write(async (q) => {
      await q(this.Q.upsertDecision, { ...decision, verdict: JSON.stringify(decision.verdict) });
      await q(this.Q.linkRunDecisions, { runId: decision.runId });
    });
  }

  async listDecisions(limit = 20): Promise<DecisionRecord[]> {
    const rows = await this.exec.read((q) => q(this.Q.listDecisions, { limit: Math.max(1, Math.trunc(limit)) }));
    return rows.map((r) => decisionFromNode(node(r, 'd')));
  }

  close(): Promise<void> {
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
    searchText: `${run.query}\n${run.answer ?? ''}`,
  };
}

function publicProficiency(p: ProficiencyTotals): Proficiency {
  const { costRuns: _costRuns, ...rest } = p;
  return rest;
}

