/**
 * The engine's contract with the adapters (src/protocols/): the one module of graph/ they import.
 * It defines the run engine and run handle (implemented by Engine in engine.ts) and re-exports
 * what a request, a stream and a record are made of: events, the run request and its Caller, the
 * per-request model choice, plan and verdict types, and the read side of the knowledge store and
 * the passthrough client that the adapters are handed. Anything else in graph/ is the engine's own.
 */
import type { Admission } from './spending/admission.ts';
import type { DirectCall, DirectCallRequest } from './spending/direct-call.ts';
import type { GraphEvent, RunEnding } from './events.ts';
import type { Caller, RunRequest } from './run-request.ts';
import type { CancelAnswer } from './cancel-run.ts';
import type { KnowledgeStore } from '../knowledge/store.ts';
import type { ApprovalDecision, ApprovalRequest, ResolveAnswer } from '../hitl/types.ts';
import type { ToolHost } from '../tools/types.ts';
import type { ResumeFrom } from './timetravel/seed.ts';

// Events: what a run emits, one type per GraphEvent.
export type {
  CouncilVerdict,
  GraphEvent,
  GraphEventOf,
  NodeName,
  RouteStage,
  RunEnding,
  RunStatus,
  StepStatus,
  UsageTotals,
} from './events.ts';
// The run request, its caller and who may see what.
export { canSee, LOCAL_CALLER, ownerFilter, RUN_MODES } from './run-request.ts';
export type { CancelAnswer } from './cancel-run.ts';
export type { Caller, ContentPart, PriorMessage, RunMode, RunRequest } from './run-request.ts';
// Per-request model choice (`model` / `models` in a request body).
export {
  ModelNameSchema,
  readModelChoice,
  resolveModelChoice,
  RoleModelsSchema,
  unknownRoleMessage,
} from './request-models.ts';
export type { RequestModels } from './request-models.ts';
export { MODEL_ROLES } from '../llm/types.ts';
// Plans and verdicts as adapters show them.
export type { GraphPlan } from './planning/graph-plan.ts';
export { CouncilVerdictSchema } from './prompting/schemas.ts';
// Time travel: checkpoints, fork, replay, compare (docs/time-travel.md); built by the composition root.
export type { TimeTravel } from './timetravel/index.ts';
// Admission: whether the usage guard let a run through (RunHandle.admission).
export type { Admission } from './spending/admission.ts';
// A model call made outside a run (the OpenAI passthrough): admitted by RunEngine.admitDirectCall.
export type { DirectCall, DirectCallRequest } from './spending/direct-call.ts';
export { createPassthrough, passthroughUsage, type Passthrough } from '../llm/passthrough.ts';

// A session's own tools (the editor's project through the client, or the project folder; the client's MCP servers).
export { createSessionTools, type SessionTools, type SessionToolsSpec } from './session-tools.ts';
export type { ProjectClient, CommandRun } from '../tools/project/client.ts';
export type { ToolHost } from '../tools/types.ts';
export type { McpServerSpec } from '../tools/server-spec.ts';
export type { ApprovalDecision, ApprovalRequest, ResolveAnswer, ToolPreview } from '../hitl/types.ts';

/** What adapters read from the knowledge store: the specialists, finished runs and memory they list. */
export type KnowledgeReads = Pick<
  KnowledgeStore,
  'listSpecialists' | 'getRun' | 'listRuns' | 'searchMemory' | 'listDecisions' | 'getDecision'
>;

export interface RunResult extends RunEnding {
  runId: string;
  threadId: string;
}

export interface RunHandle {
  readonly id: string;
  readonly threadId: string;
  /** The caller that started the run: it owns the run and everything the run produces. */
  readonly callerId: string;
  /**
   * Settles as soon as the usage guard has decided, before any model call: admitted, or refused
   * with the reason and a retry delay (the run then ends "blocked"). Never rejects. HTTP adapters
   * await it to answer a refusal with 429 + Retry-After instead of opening a stream.
   */
  readonly admission: Promise<Admission>;
  /** Settles when the run ends; never rejects (failures are a RunResult with status "failed"). */
  readonly result: Promise<RunResult>;
  /**
   * A fresh iterator over the run's events from seq > afterSeq (default 0: from the start, replaying the
   * retained history), ending after run.finished. Each call is an independent consumer; breaking out of
   * the loop detaches it.
   */
  events(afterSeq?: number): AsyncIterable<GraphEvent>;
  /**
   * The seq of the last event emitted so far (0 before the first): how far a replay can read without
   * waiting. Live runs have it; a finished run known only from the store does not.
   */
  lastSeq?(): number;
  /**
   * True on a handle served from the run store (durable/stored-handle.ts): the run has ended, and its
   * result and events are store reads, which take longer than a macrotask.
   */
  readonly fromStore?: true;
  /**
   * The run's approvals that wait on a human, as announced (approval.requested): with replicas, also
   * while another replica executes the run. Empty once the run has ended.
   */
  pendingApprovals(): ApprovalRequest[];
  /**
   * Answers one of the run's approvals: the same futures as POST /api/approve, so the first answer on
   * any channel wins (a later one reads already_resolved). An approval of another run answers
   * not_found, like an unknown id; `actor` is who answered, for the audit ("acp", "a2a", a key id).
   */
  resolve(requestId: string, decision: ApprovalDecision, actor: string): Promise<ResolveAnswer>;
}

/** What a run is given besides its request: live ports, never persisted with it. */
export interface RunOptions {
  /** The session's own tools (createSessionTools), offered to every tool-loop specialist of the run beside its own. */
  tools?: ToolHost;
  /** Time travel (graph/timetravel/): start from a checkpoint's plan and finished steps instead of routing afresh. */
  resumeFrom?: ResumeFrom;
}

export interface RunEngine {
  start(request: RunRequest, options?: RunOptions): RunHandle;
  /** Admits a model call made outside a run (the passthrough) against the caller's rate limit and budgets. */
  admitDirectCall(request: DirectCallRequest): DirectCall;
  /** Aborts a running run (its in-flight model/tool calls and pending approvals). False if unknown or ended. */
  cancel(runId: string, reason?: string): boolean;
  /**
   * Cancels the run and waits (at most CANCEL_CONFIRM_MS) for it to end, on whichever replica executes
   * it: whether the cancel took hold, the run had already ended, or its replica has not answered yet.
   */
  cancelAndWait(handle: RunHandle, reason?: string): Promise<CancelAnswer>;
  /**
   * get(), or else a finished run this process does not hold (another replica ran it, or it finished
   * before a restart) read from the run store while within the retention; same caller rule as get().
   */
  find(runId: string, caller?: Caller): Promise<RunHandle | undefined>;
  /**
   * A running or recently finished run still retained in memory. With a caller, only a run that
   * caller may see (its own; any for an admin): another caller's run is undefined, like an unknown one.
   */
  get(runId: string, caller?: Caller): RunHandle | undefined;
  /**
   * Replicas: false when the run executes on another replica (get() then follows it from the shared
   * store). Absent or true: this process executes it (or retains it finished).
   */
  executesHere?(runId: string): boolean;
  /** Replicas: `listener` hears of every run this replica takes over from a dead one; returns the unsubscribe. */
  onTakeover?(listener: (runId: string) => void): () => void;
}
