/**
 * KnowledgeStore: the specialist registry and execution memory. Two backends implement it
 * (kuzu/ embedded default, neo4j/ when NEO4J_URI is set) and pass the same contract tests.
 * Methods are the operations Parley needs, not a generic query API. Writes are idempotent.
 */
import type { ApprovalRecord, ToolAnnotations } from '../hitl/types.ts';
import type { ModelRole } from '../llm/types.ts';
import type { CouncilVerdict, ForkOrigin, GraphPlan, RunStatus, StepStatus } from './records.ts';

/** The approval audit row is the broker's (hitl/ sits below knowledge/); the store keeps it. */
export type { ApprovalRecord } from '../hitl/types.ts';

export type SpecialistKind = 'prompt' | 'mcp' | 'a2a';

export interface SpecialistRecord {
  id: string;
  name: string;
  description: string;
  kind: SpecialistKind;
  domains: string[];
  /** System prompt for prompt specialists. */
  prompt: string;
  /** MCP server name (mcp) or the peer's base URL (a2a; its card is at <base>/.well-known/agent-card.json). */
  endpoint: string;
  modelRole: ModelRole;
  /** Tool ids (`server/tool`) the specialist may call. */
  tools: string[];
  sourceId: string;
  /** false once its source no longer lists it, or its server is unavailable. */
  available: boolean;
  unavailableReason?: string;
}

export interface ToolRecord {
  id: string; // `server/tool`
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
  available: boolean;
  /** Source that listed the tool (e.g. "mcp:filesystem"); markGone uses it. */
  sourceId?: string;
}

export interface SourceRecord {
  id: string; // e.g. "mcp:filesystem", "skills:/path", "a2a:https://…"
  kind: 'mcp' | 'skills' | 'a2a';
  location: string;
  contentHash: string;
  ingestedAt: string;
  status: 'ok' | 'unavailable';
  error?: string;
}

/** Per-specialist or per-domain record learnt from verifier scores. */
export interface Proficiency {
  subject: string; // specialist id or domain name
  kind: 'specialist' | 'domain';
  runs: number;
  successes: number;
  meanScore: number;
  meanLatencyMs: number;
  meanCostUsd: number;
}

export interface SpecialistCandidate {
  specialist: SpecialistRecord;
  /** Text relevance of the specialist to the query, 0..1. */
  relevance: number;
  proficiency?: Proficiency;
  /** Final ranking score (relevance combined with the self-model). */
  score: number;
}

/**
 * A team's proven plan and the query of the successful run that taught it: stage 1 reuses the team
 * only for a query of the same shape as that one, and rewrites the objectives from the new query.
 * Kept inside the plan's JSON, so the stored record needs no new property; absent on teams learnt
 * before (never reused).
 */
export type TeamPlan = GraphPlan & { taughtBy?: string };

export interface TeamConfig {
  id: string;
  /**
   * The caller whose runs taught the team: its plan carries that caller's objectives, so only that
   * caller's runs reuse it. Empty for teams recorded before teams had owners (never reused).
   */
  callerId?: string;
  pattern: string;
  specialists: string[];
  plan: TeamPlan;
  uses: number;
  successes: number;
  avgScore: number;
}

export interface StepRecord {
  id: string;
  specialist: string;
  objective: string;
  status: StepStatus;
  output?: string;
  error?: string;
  durationMs: number;
  tokens: number;
  costUsd: number | null;
  toolCalls: { tool: string; status: 'ok' | 'error' | 'denied' }[];
}

export interface RunRecord {
  id: string;
  threadId: string;
  query: string;
  protocol: string;
  callerId: string;
  startedAt: string;
  durationMs: number;
  status: RunStatus;
  answer?: string;
  error?: string;
  tokens: number;
  costUsd: number | null;
  /** Verifier score of the final round; null when no verification ran (direct answers, failures). */
  score: number | null;
  plan?: GraphPlan;
  steps: StepRecord[];
  /** TeamConfig reused by the router, if any. */
  teamConfigId?: string;
  /** Set on a fork (POST /api/runs/:id/fork): the run and checkpoint it started from, as run.started said. */
  forkedFrom?: ForkOrigin;
}

export interface RunSummary {
  id: string;
  query: string;
  status: RunStatus;
  startedAt: string;
  durationMs: number;
  score: number | null;
  threadId: string;
  /** The protocol the run came in on (sse, agui, a2a, acp, mcp, openai, cli). */
  protocol: string;
  /** The caller that owns it (a non-secret id): only an admin's list holds other callers' runs. */
  callerId: string;
  /** Set on a fork: the run and checkpoint it started from. */
  forkedFrom?: ForkOrigin;
}

export interface DecisionRecord {
  id: string;
  runId: string;
  /** The caller of the council run (empty for decisions recorded before decisions had owners). */
  callerId?: string;
  question: string;
  verdict: CouncilVerdict;
  decidedAt: string;
}

/** Look-ups scoped to one caller: `callerId` set means only that caller's records; unset means all (admins, internal use). */
export interface CallerScope {
  callerId?: string;
}

export interface MemoryHit {
  runId: string;
  query: string;
  /** The whole answer, or its first characters when the search asked for at most `answerChars` of it. */
  answer: string;
  /** Set when `answer` is cut: the whole answer's length. */
  answerChars?: number;
  score: number | null;
  /** How the earlier run ended. */
  status?: RunStatus;
  /**
   * How close the earlier run's request is to this query, 0..1 on an absolute scale
   * (knowledge/memory-relevance.ts): not relative to the other hits, so an unrelated best hit scores low.
   */
  relevance: number;
  /** The words the two requests share, topical ones first (why the run was found). */
  sharedTerms: string[];
}

export interface MemorySearchOptions {
  /** At most this many characters of each answer (the rest is counted in answerChars). */
  answerChars?: number;
  /** Only runs at least this relevant (MemoryHit.relevance): what a prompt's memory is held to. */
  minRelevance?: number;
}

export interface SpecialistFilter {
  kind?: SpecialistKind;
  domain?: string;
  available?: boolean;
  text?: string;
}

export interface KnowledgeStore {
  // Registry
  upsertSource(source: SourceRecord): Promise<void>;
  getSource(id: string): Promise<SourceRecord | undefined>;
  upsertSpecialists(specialists: SpecialistRecord[]): Promise<void>;
  upsertTools(tools: ToolRecord[]): Promise<void>;
  /** Marks every specialist/tool of the source not in keepIds as unavailable ("gone"). */
  markGone(sourceId: string, keepSpecialistIds: string[], keepToolIds: string[]): Promise<void>;
  listSpecialists(filter?: SpecialistFilter): Promise<SpecialistRecord[]>;
  getSpecialist(id: string): Promise<SpecialistRecord | undefined>;
  listTools(server?: string): Promise<ToolRecord[]>;
  getTool(id: string): Promise<ToolRecord | undefined>;
  /** Top-k candidates for a query, text relevance combined with the self-model. */
  retrieveSpecialists(query: string, k: number): Promise<SpecialistCandidate[]>;

  // Execution memory
  /** The best proven team for the query among the caller's own teams (every team when unscoped). */
  findTeamConfig(query: string, scope?: CallerScope): Promise<TeamConfig | undefined>;
  /**
   * Settles once the record is committed (or failed). With `deferMs` the write may wait that long for
   * other records to share its transaction; every read that needs the record still sees it (it is
   * written at once then): getRun, listRuns, getProficiency, searchMemory, a findTeamConfig it could change.
   */
  recordRun(run: RunRecord, options?: { deferMs?: number }): Promise<void>;
  /**
   * Writes every record handed to recordRun so far now, none waiting out its `deferMs`; settles once they are
   * committed (or failed). What a closing engine calls instead of waiting out the deferral.
   */
  settleRuns(): Promise<void>;
  /** Unscoped: the record carries callerId, and adapters check it against the request's caller. */
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(
    options?: { limit?: number; status?: RunStatus; threadId?: string; protocol?: string } & CallerScope,
  ): Promise<RunSummary[]>;
  getProficiency(subject: string, kind: Proficiency['kind']): Promise<Proficiency | undefined>;
  /** Earlier runs relevant to the query; with a callerId only that caller's runs (no content crosses callers). */
  /**
   * With `answerChars`, an answer may come cut to its first that many characters (no database read, when
   * that is at most MEMORY_ANSWER_CHARS: what a prompt shows), `answerChars` on the hit saying its length.
   */
  searchMemory(query: string, k: number, scope?: CallerScope, options?: MemorySearchOptions): Promise<MemoryHit[]>;
  recordApproval(approval: ApprovalRecord): Promise<void>;
  listApprovals(runId: string): Promise<ApprovalRecord[]>;
  recordDecision(decision: DecisionRecord): Promise<void>;
  listDecisions(limit?: number, scope?: CallerScope): Promise<DecisionRecord[]>;
  getDecision(id: string): Promise<DecisionRecord | undefined>;

  close(): Promise<void>;
}
