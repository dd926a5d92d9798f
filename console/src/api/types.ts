/**
 * The shapes the console reads, taken from the server's own source (type-only imports: nothing of the
 * server is bundled), so a change to an event or a record breaks `npm run typecheck`, not the page.
 */
export type {
  GraphEvent,
  GraphEventOf,
  StepLineage,
  UsageTotals,
  CouncilVerdict,
  RunStatus,
  StepStatus,
} from '../../../src/graph/run/events.ts';
export type { GraphPlan, PlanStep } from '../../../src/knowledge/records.ts';
export type { ApprovalRequest, PendingToolCall, ToolPreview } from '../../../src/hitl/types.ts';
export type {
  RunRecord,
  RunSummary,
  MemoryHit,
  DecisionRecord,
  Proficiency,
  SpecialistRecord,
  ToolRecord,
} from '../../../src/knowledge/store.ts';
export type { McpServerStatus } from '../../../src/tools/mcp-host.ts';
export type { RunMode } from '../../../src/graph/run/request.ts';
import type { ModelRole } from '../../../src/llm/types.ts';

/** The modes the chat offers (RUN_MODES in src/graph/run/request.ts). */
export const CHAT_MODES = ['auto', 'direct', 'orchestrate', 'council', 'dynamic', 'hybrid'] as const;
export type { CheckpointEntry } from '../../../src/graph/timetravel/checkpoint-list.ts';
export type { RunCheckpoint, CheckpointStep } from '../../../src/graph/timetravel/checkpoints.ts';
export type { RunSummary as ComparedRun, Difference } from '../../../src/graph/timetravel/compare.ts';
export type { Scorecard, CaseScore } from '../../../src/eval/scorecard.ts';
export type { VersusSummary, VersusCaseScore } from '../../../src/eval/versus-card.ts';
export type { ScorecardSummary } from '../../../src/store/scorecards/files.ts';

/**
 * The model roles a fork may set: every role of MODEL_ROLES (src/llm/types.ts) but the judge, which grades
 * evals, never a run. Keyed by role, so a role added to or removed from MODEL_ROLES fails `npm run typecheck`.
 */
const FORK_ROLE_SET: Record<Exclude<ModelRole, 'judge'>, true> = {
  default: true,
  router: true,
  planner: true,
  specialist: true,
  verifier: true,
  synthesizer: true,
  council_advisor: true,
  council_reviewer: true,
  council_chairman: true,
  summarizer: true,
};
export const FORK_ROLES = Object.keys(FORK_ROLE_SET) as (keyof typeof FORK_ROLE_SET)[];
