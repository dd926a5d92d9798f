/**
 * Database rows ⇄ record types, shared by both backends (their executors hand over plain property
 * objects). Lists and objects are stored as JSON strings: Kuzu has no map properties and binds empty
 * typed lists as null, and Neo4j properties cannot hold maps.
 */
import type {
  ApprovalRecord,
  DecisionRecord,
  RunRecord,
  SourceRecord,
  SpecialistRecord,
  StepRecord,
  TeamConfig,
  ToolRecord,
} from './store.ts';
import type { ProficiencyTotals } from './registry.ts';
import type { ModelRole } from '../llm/types.ts';

type Value = unknown;
type Node = Record<string, Value>;

export const str = (v: Value | undefined): string => (v === null || v === undefined ? '' : String(v));
export const optStr = (v: Value | undefined): string | undefined =>
  v === null || v === undefined || v === '' ? undefined : String(v);
export const num = (v: Value | undefined): number => (v === null || v === undefined ? 0 : Number(v));
export const optNum = (v: Value | undefined): number | null => (v === null || v === undefined ? null : Number(v));
export function json<T>(v: Value | undefined, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  return JSON.parse(v) as T;
}
const enc = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

export function sourceFromNode(n: Node): SourceRecord {
  const source: SourceRecord = {
    id: str(n.id),
    kind: str(n.sourceKind) as SourceRecord['kind'],
    location: str(n.location),
    contentHash: str(n.contentHash),
    ingestedAt: str(n.ingestedAt),
    status: str(n.status) as SourceRecord['status'],
  };
  const error = optStr(n.error);
  if (error !== undefined) source.error = error;
  return source;
}

export function specialistFromNode(n: Node): SpecialistRecord {
  const s: SpecialistRecord = {
    id: str(n.id),
    name: str(n.name),
    description: str(n.description),
    kind: str(n.kind) as SpecialistRecord['kind'],
    domains: json<string[]>(n.domains, []),
    prompt: str(n.prompt),
    endpoint: str(n.endpoint),
    modelRole: str(n.modelRole) as ModelRole,
    tools: json<string[]>(n.tools, []),
    sourceId: str(n.sourceId),
    available: n.available === true,
  };
  const reason = optStr(n.unavailableReason);
  if (reason !== undefined) s.unavailableReason = reason;
  return s;
}

export function toolFromNode(n: Node): ToolRecord {
  const t: ToolRecord = {
    id: str(n.id),
    server: str(n.server),
    name: str(n.name),
    description: str(n.description),
    inputSchema: json(n.inputSchema, {}),
    annotations: json(n.annotations, {}),
    available: n.available === true,
  };
  const sourceId = optStr(n.sourceId);
  if (sourceId !== undefined) t.sourceId = sourceId;
  return t;
}

export function teamFromNode(n: Node): TeamConfig {
  return {
    id: str(n.id),
    callerId: str(n.callerId),
    pattern: str(n.pattern),
    specialists: json<string[]>(n.specialists, []),
    plan: json(n.plan, { rationale: '', steps: [] }),
    uses: num(n.uses),
    successes: num(n.successes),
    avgScore: num(n.avgScore),
  };
}

export function proficiencyFromNode(n: Node): ProficiencyTotals {
  return {
    subject: str(n.subject),
    kind: str(n.kind) as ProficiencyTotals['kind'],
    runs: num(n.runs),
    successes: num(n.successes),
    meanScore: num(n.meanScore),
    meanLatencyMs: num(n.meanLatencyMs),
    meanCostUsd: num(n.meanCostUsd),
    costRuns: num(n.costRuns),
  };
}

export function runFromNodes(r: Node, steps: Node[]): RunRecord {
  const run: RunRecord = {
    id: str(r.id),
    threadId: str(r.threadId),
    query: str(r.query),
    protocol: str(r.protocol),
    callerId: str(r.callerId),
    startedAt: str(r.startedAt),
    durationMs: num(r.durationMs),
    status: str(r.status) as RunRecord['status'],
    tokens: num(r.tokens),
    costUsd: optNum(r.costUsd),
    score: optNum(r.score),
    steps: steps.map(stepFromNode),
  };
  const answer = optStr(r.answer);
  if (answer !== undefined) run.answer = answer;
  const error = optStr(r.error);
  if (error !== undefined) run.error = error;
  const plan = json<RunRecord['plan']>(r.plan, undefined);
  if (plan) run.plan = plan;
  const team = optStr(r.teamConfigId);
  if (team !== undefined) run.teamConfigId = team;
  const forkedFrom = json<RunRecord['forkedFrom']>(r.forkedFrom, undefined);
  if (forkedFrom) run.forkedFrom = forkedFrom;
  return run;
}

function stepFromNode(n: Node): StepRecord {
  const step: StepRecord = {
    id: str(n.stepId),
    specialist: str(n.specialist),
    objective: str(n.objective),
    status: str(n.status) as StepRecord['status'],
    durationMs: num(n.durationMs),
    tokens: num(n.tokens),
    costUsd: optNum(n.costUsd),
    toolCalls: json(n.toolCalls, []),
  };
  const output = optStr(n.output);
  if (output !== undefined) step.output = output;
  const error = optStr(n.error);
  if (error !== undefined) step.error = error;
  return step;
}

export function approvalParams(a: ApprovalRecord): Record<string, Value> {
  return {
    id: a.id,
    runId: a.runId,
    kind: a.kind,
    request: enc(a.request),
    requestedAt: a.requestedAt,
    decision: enc(a.decision),
    resolvedBy: a.resolvedBy ?? null,
    actor: a.actor ?? null,
    resolvedAt: a.resolvedAt ?? null,
  };
}

export function approvalFromNode(n: Node): ApprovalRecord {
  const a: ApprovalRecord = {
    id: str(n.id),
    runId: str(n.runId),
    kind: str(n.kind) as ApprovalRecord['kind'],
    request: json<unknown>(n.request, null),
    requestedAt: str(n.requestedAt),
  };
  if (optStr(n.decision) !== undefined) a.decision = json<unknown>(n.decision, null);
  const resolvedBy = optStr(n.resolvedBy);
  if (resolvedBy !== undefined) a.resolvedBy = resolvedBy as ApprovalRecord['resolvedBy'];
  const actor = optStr(n.actor);
  if (actor !== undefined) a.actor = actor;
  const resolvedAt = optStr(n.resolvedAt);
  if (resolvedAt !== undefined) a.resolvedAt = resolvedAt;
  return a;
}

export function decisionFromNode(n: Node): DecisionRecord {
  return {
    id: str(n.id),
    runId: str(n.runId),
    ...(optStr(n.callerId) ? { callerId: str(n.callerId) } : {}),
    question: str(n.question),
    verdict: json(n.verdict, {} as DecisionRecord['verdict']),
    decidedAt: str(n.decidedAt),
  };
}
