/**
 * The embedded default KnowledgeStore on Kuzu: a single database file (or :memory: in tests),
 * schema created/migrated at open, Kuzu's full-text index for retrieval and memory search.
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
} from '../store.ts';
import {
  DEFAULT_REGISTRY_OPTIONS,
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
} from '../registry.ts';
import { KuzuSession, type Params } from './session.ts';
import { migrate } from './schema.ts';
import { Q } from './queries.ts';
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

export interface KuzuStoreOptions extends Partial<RegistryOptions> {
  /** Database file path, or ':memory:'. */
  path: string;
}

export async function openKuzuStore(options: KuzuStoreOptions): Promise<KnowledgeStore> {
  const session = await KuzuSession.open(options.path);
  try {
    await migrate(session);
  } catch (err) {
    await session.close();
    throw err;
  }
  return new KuzuStore(session, { ...DEFAULT_REGISTRY_OPTIONS, ...stripUndefined(options) });
}

const node = (row: Record<string, unknown>, key: string) => row[key] as Record<string, never>;
const profId = (kind: Proficiency['kind'], subject: string) => `${kind}:${subject}`;

class KuzuStore implements KnowledgeStore {
  constructor(
    private readonly db: KuzuSession,
    private readonly options: RegistryOptions,
  ) {}

  // ── Registry ────────────────────────────────────────────────────────────

  async upsertSource(source: SourceRecord): Promise<void> {
    await this.db.query(Q.upsertSource, { ...source, error: source.error ?? null });
  }

  async getSource(id: string): Promise<SourceRecord | undefined> {
    const rows = await this.db.query(Q.getSource, { id });
    return rows[0] ? sourceFromNode(node(rows[0], 's')) : undefined;
  }

  async upsertSpecialists(specialists: SpecialistRecord[]): Promise<void> {
    if (specialists.length === 0) return;
    await this.db.transaction(async () => {
      for (const s of specialists) {
        await this.db.run(Q.upsertSpecialist, {
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
        await this.db.run(Q.unlinkSpecialistSource, { id: s.id });
        await this.db.run(Q.linkSpecialistSource, { id: s.id, sourceId: s.sourceId });
        await this.db.run(Q.unlinkSpecialistTools, { id: s.id });
        if (s.tools.length) await this.db.run(Q.linkSpecialistTools, { id: s.id, tools: s.tools });
      }
    });
  }

  async upsertTools(tools: ToolRecord[]): Promise<void> {
    if (tools.length === 0) return;
    await this.db.transaction(async () => {
      for (const t of tools) {
        await this.db.run(Q.upsertTool, {
          id: t.id,
          server: t.server,
          name: t.name,
          description: t.description,
          inputSchema: JSON.stringify(t.inputSchema ?? {}),
          annotations: JSON.stringify(t.annotations ?? {}),
          available: t.available,
          sourceId: t.sourceId ?? null,
        });
        if (t.sourceId) await this.db.run(Q.linkToolSource, { id: t.id, sourceId: t.sourceId });
        await this.db.run(Q.linkToolUsers, { id: t.id, quoted: JSON.stringify(t.id) });
      }
    });
  }

  async markGone(sourceId: string, keepSpecialistIds: string[], keepToolIds: string[]): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.run(Q.markSpecialistsGone, { sourceId, keep: keepSpecialistIds });
      await this.db.run(Q.markToolsGone, { sourceId, keep: keepToolIds });
    });
  }

  async listSpecialists(filter?: SpecialistFilter): Promise<SpecialistRecord[]> {
    const rows = await this.db.query(Q.listSpecialists);
    return rows.map((r) => specialistFromNode(node(r, 's'))).filter((s) => matchesFilter(s, filter));
  }

  async getSpecialist(id: string): Promise<SpecialistRecord | undefined> {
    const rows = await this.db.query(Q.getSpecialist, { id });
    return rows[0] ? specialistFromNode(node(rows[0], 's')) : undefined;
  }

  async listTools(server?: string): Promise<ToolRecord[]> {
    const rows = server === undefined ? await this.db.query(Q.listTools) : await this.db.query(Q.listToolsOfServer, { server });
    return rows.map((r) => toolFromNode(node(r, 't')));
  }

  async getTool(id: string): Promise<ToolRecord | undefined> {
    const rows = await this.db.query(Q.getTool, { id });
    return rows[0] ? toolFromNode(node(rows[0], 't')) : undefined;
  }

  async retrieveSpecialists(query: string, k: number): Promise<SpecialistCandidate[]> {
    const q = ftsQueryText(query);
    if (!q || k <= 0) return [];
    return this.db.exclusive(async () => {
      // Over-fetch: unavailable specialists are dropped and the record may reorder the top.
      const hits = await this.db.run(Q.searchSpecialists, { q, limit: Math.max(k * 4, 50) });
      if (hits.length === 0) return [];
      const ids = hits.map((h) => str(h.id));
      const specialists = new Map(
        (await this.db.run(Q.specialistsByIds, { ids })).map((r) => {
          const s = specialistFromNode(node(r, 's'));
          return [s.id, s] as const;
        }),
      );
      const profs = await this.db.run(Q.proficienciesByIds, { ids: ids.map((id) => profId('specialist', id)) });
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
    const rows = await this.db.query(Q.listTeams);
    return pickTeam(query, rows.map((r) => teamFromNode(node(r, 't'))), this.options);
  }

  async recordRun(run: RunRecord): Promise<void> {
    await this.db.transaction(async () => {
      // A run recorded again (same id) replaces its record but teaches nothing twice.
      const seen = (await this.db.run(Q.runExists, { id: run.id })).length > 0;
      await this.db.run(Q.upsertRun, runParams(run));
      await this.db.run(Q.deleteSteps, { runId: run.id });
      if (run.steps.length) {
        await this.db.run(Q.createSteps, {
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
        await this.db.run('MATCH (s:Step {runId: $runId}) WHERE s.costUsd < 0 SET s.costUsd = NULL', { runId: run.id });
        await this.db.run(Q.linkStepSpecialists, { runId: run.id });
        const calls = run.steps.flatMap((s) => s.toolCalls.map((c) => ({ stepId: `${run.id}/${s.id}`, tool: c.tool, status: c.status })));
        if (calls.length) await this.db.run(Q.linkStepTools, { calls });
      }
      await this.db.run(Q.linkRunApprovals, { runId: run.id });
      await this.db.run(Q.linkRunDecisions, { runId: run.id });
      if (!seen) await this.learn(run);
    });
  }

  /** Updates TeamConfig and proficiency statistics from the run's verifier score. */
  private async learn(run: RunRecord): Promise<void> {
    const team = teamOf(run);
    if (team) {
      const reusedId = run.teamConfigId && (await this.db.run(Q.getTeam, { id: run.teamConfigId })).length ? run.teamConfigId : undefined;
      const id = reusedId ?? teamId(team.pattern, team.specialists);
      const existing = await this.db.run(Q.getTeam, { id });
      const current: TeamConfig = existing[0]
        ? teamFromNode(node(existing[0], 't'))
        : { id, pattern: team.pattern, specialists: team.specialists, plan: run.plan!, uses: 0, successes: 0, avgScore: 0 };
      const next = applyTeamRun(current, run);
      await this.db.run(Q.upsertTeam, { ...next, specialists: JSON.stringify(next.specialists), plan: JSON.stringify(next.plan) });
      await this.db.run(Q.linkRunTeam, { runId: run.id, teamId: id });
    }
    const observations = observationsOf(run);
    if (observations.length === 0) return;
    const ids = [...new Set(observations.map((o) => o.specialistId))];
    const domainsOf = new Map(
      (await this.db.run(Q.specialistsByIds, { ids })).map((r) => {
        const s = specialistFromNode(node(r, 's'));
        return [s.id, s.domains] as const;
      }),
    );
    const updates = new Map<string, ProficiencyTotals>();
    const bump = async (kind: Proficiency['kind'], subject: string, o: (typeof observations)[number]['observation']) => {
      const key = profId(kind, subject);
      let p = updates.get(key);
      if (!p) {
        const rows = await this.db.run(Q.getProficiency, { id: key });
        p = rows[0] ? proficiencyFromNode(node(rows[0], 'p')) : emptyProficiency(subject, kind);
      }
      updates.set(key, applyObservation(p, o));
    };
    for (const { specialistId, observation } of observations) {
      await bump('specialist', specialistId, observation);
      for (const domain of domainsOf.get(specialistId) ?? []) await bump('domain', domain, observation);
    }
    for (const [id, p] of updates) await this.db.run(Q.upsertProficiency, { id, ...p });
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return this.db.exclusive(async () => {
      const rows = await this.db.run(Q.getRun, { id });
      if (!rows[0]) return undefined;
      const steps = await this.db.run(Q.stepsOfRun, { runId: id });
      return runFromNodes(node(rows[0], 'r'), steps.map((s) => node(s, 's')));
    });
  }

  async listRuns(options: { limit?: number; status?: RunRecord['status']; threadId?: string } = {}): Promise<RunSummary[]> {
    const limit = Math.max(1, Math.min(1000, Math.trunc(options.limit ?? 50)));
    const rows = await this.db.query(Q.listRuns, { status: options.status ?? '', threadId: options.threadId ?? '', limit });
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
    const rows = await this.db.query(Q.getProficiency, { id: profId(kind, subject) });
    return rows[0] ? publicProficiency(proficiencyFromNode(node(rows[0], 'p'))) : undefined;
  }

  async searchMemory(query: string, k: number): Promise<MemoryHit[]> {
    const q = ftsQueryText(query);
    if (!q || k <= 0) return [];
    const rows = await this.db.query(Q.searchRuns, { q, limit: k });
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
    await this.db.transaction(async () => {
      await this.db.run(Q.upsertApproval, approvalParams(approval));
      await this.db.run(Q.linkRunApprovals, { runId: approval.runId });
    });
  }

  async listApprovals(runId: string): Promise<ApprovalRecord[]> {
    const rows = await this.db.query(Q.listApprovals, { runId });
    return rows.map((r) => approvalFromNode(node(r, 'a')));
  }

  async recordDecision(decision: DecisionRecord): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.run(Q.upsertDecision, { ...decision, verdict: JSON.stringify(decision.verdict) });
      await this.db.run(Q.linkRunDecisions, { runId: decision.runId });
    });
  }

  async listDecisions(limit = 20): Promise<DecisionRecord[]> {
    const rows = await this.db.query(Q.listDecisions, { limit: Math.max(1, Math.trunc(limit)) });
    return rows.map((r) => decisionFromNode(node(r, 'd')));
  }

  close(): Promise<void> {
    return this.db.close();
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

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
