/**
 * The engine's contract with the adapters (src/protocols/): the one module of graph/ they import.
 * It re-exports the run engine and run handle (run/engine-port.ts, implemented by Engine in engine.ts) and
 * what a request, a stream and a record are made of: events, the run request and its Caller, the
 * per-request model choice, plan and verdict types, and the read side of the knowledge store and
 * the passthrough client that the adapters are handed. Anything else in graph/ is the engine's own.
 */
import type { KnowledgeStore } from '../knowledge/store.ts';

// The run engine and a run's handle (implemented by Engine in engine.ts).
export type { CancelAnswer, RunEngine, RunHandle, RunOptions, RunResult } from './run/engine-port.ts';

// Events: what a run emits, one type per GraphEvent.
export type {
  CouncilVerdict,
  GraphEvent,
  GraphEventOf,
  NodeName,
  AnswerReference,
  AnswerSource,
  NamedSource,
  RouteStage,
  RunEnding,
  RunStatus,
  StepStatus,
  UsageTotals,
} from './run/events.ts';
// The run request, its caller and who may see what.
export { canSee, CITATION_STYLES, LOCAL_CALLER, ownerFilter, RUN_MODES } from './run/request.ts';
export type { Caller, CitationStyle, ContentPart, PriorMessage, RunMode, RunRequest } from './run/request.ts';
// A new run id (a flat string: what the engine gives a run that names none).
export { newId } from './run/new-id.ts';
// Per-request model choice (`model` / `models` in a request body).
export {
  ModelNameSchema,
  readModelChoice,
  resolveModelChoice,
  RoleModelsSchema,
  unknownRoleMessage,
} from './run/request-models.ts';
export type { RequestModels } from './run/request-models.ts';
export { MODEL_ROLES } from '../llm/types.ts';
// Plans and verdicts as adapters show them.
export type { GraphPlan } from './planning/graph-plan.ts';
export { CouncilRecordSchema, CouncilVerdictSchema } from './prompting/schemas.ts';
// Prompt pieces a client's own model call shares with the engine's (the eval judge, src/eval/).
export { block } from './prompting/prompts.ts';
export { todayNote } from './prompting/today.ts';
// Time travel: checkpoints, fork, replay, compare (docs/time-travel.md); built by the composition root.
export type { TimeTravel } from './timetravel/index.ts';
// Admission: whether the usage guard let a run through (RunHandle.admission).
export type { Admission } from './spending/admission.ts';
// A model call made outside a run (the OpenAI passthrough): admitted by RunEngine.admitDirectCall.
export type { DirectCall, DirectCallRequest } from './spending/direct-call.ts';
export { createPassthrough, passthroughUsage, type Passthrough } from '../llm/passthrough.ts';

// A session's own tools (the editor's project through the client, or the project folder; the client's MCP servers).
export { createSessionTools, type SessionTools, type SessionToolsSpec } from '../tools/session-tools.ts';
export type { ProjectClient, CommandRun } from '../tools/project/client.ts';
export type { ToolHost } from '../tools/types.ts';
export type { McpServerSpec } from '../tools/server-spec.ts';
export type { ApprovalDecision, ApprovalRequest, ResolveAnswer, ToolPreview } from '../hitl/types.ts';

/** What adapters read from the knowledge store: the specialists, finished runs and memory they list. */
export type KnowledgeReads = Pick<
  KnowledgeStore,
  'listSpecialists' | 'getRun' | 'listRuns' | 'searchMemory' | 'listDecisions' | 'getDecision'
>;
