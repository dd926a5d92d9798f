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
} from '../../../src/graph/events.ts';
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
export type { RunMode } from '../../../src/graph/run-request.ts';

/** The modes the chat offers (RUN_MODES in src/graph/run-request.ts). */
export const CHAT_MODES = ['auto', 'direct', 'orchestrate', 'council', 'dynamic', 'hybrid'] as const;
export type { CheckpointEntry } from '../../../src/graph/timetravel/checkpoint-list.ts';
export type { RunCheckpoint, CheckpointStep } from '../../../src/graph/timetravel/checkpoints.ts';
export type { RunSummary as ComparedRun, Difference } from '../../../src/graph/timetravel/compare.ts';
export type { Scorecard, CaseScore } from '../../../src/graph/eval/scorecard.ts';
export type { ScorecardSummary } from '../../../src/store/scorecards/files.ts';

/** The model roles a fork may set (MODEL_ROLES in src/llm/types.ts; the judge grades evals, never a run). */
export const FORK_ROLES = [
  'default',
  'router',
  'planner',
  'specialist',
  'verifier',
  'synthesizer',
  'council_advisor',
  'council_reviewer',
  'council_chairman',
  'summarizer',
] as const;
