/**
 * The port the engine offers (implemented by Engine in engine.ts): RunEngine starts, finds and cancels
 * runs; a RunHandle is one run as its caller sees it. Adapters import it through contract.ts; the engine's
 * own files import it here, so that nothing contract.ts re-exports imports contract.ts back.
 */
import type { Admission } from '../spending/admission.ts';
import type { DirectCall, DirectCallRequest } from '../spending/direct-call.ts';
import type { GraphEvent, RunEnding, RunStatus } from './events.ts';
import type { Caller, RunRequest } from './request.ts';
import type { ApprovalDecision, ApprovalRequest, ResolveAnswer } from '../../hitl/types.ts';
import type { ToolHost } from '../../tools/types.ts';
import type { GraphPlan } from '../../knowledge/records.ts';
import type { KeptStep } from './state.ts';

/** Where a new run starts from (RunOptions.resumeFrom): a checkpoint's state, seeded by timetravel/seed.ts. */
export interface ResumeFrom {
  plan: GraphPlan;
  /** The plan's round at the checkpoint (a re-plan after it counts on from there). */
  round: number;
  /** The finished steps carried, with their (possibly edited) outcomes. */
  kept: KeptStep[];
  /** What route.decided says (e.g. `forked from run … at checkpoint cp-12`). */
  reason: string;
  /** The parent's passing verification, when every step of the plan is carried unedited: not asked again. */
  verification?: { fromRunId: string; round: number; score: number; feedback: string };
}

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
   * True on a handle served from the run store (retention/stored-handle.ts): the run has ended, and its
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
   * store), also one that moved there while it ran here (this replica lost its lease). Absent or
   * true: this process executes it (or retains it finished).
   */
  executesHere?(runId: string): boolean;
  /** Replicas: `listener` hears of every run this replica takes over from a dead one; returns the unsubscribe. */
  onTakeover?(listener: (runId: string) => void): () => void;
  /**
   * A pending approval by its id alone (an AG-UI interrupt id, the MCP `approve` tool's request_id), on
   * any run `caller` may see, with the run asking (`runId`): another caller's answers like an unknown id.
   */
  approval(requestId: string, caller: Caller): ApprovalRequest | undefined;
  /**
   * Answers an approval by its id alone, for a channel that names no run: the same futures as
   * RunHandle.resolve, so the first answer on any channel wins; scoped to `caller` like approval().
   */
  resolveApproval(requestId: string, decision: ApprovalDecision, actor: string, caller: Caller): Promise<ResolveAnswer>;
}

export type CancelAnswer =
  /** The cancel took hold and the run has ended cancelled. */
  | { outcome: 'cancelled' }
  /** The run had ended (or ended before the cancel reached it) with `status`. */
  | { outcome: 'already_ended'; status: RunStatus }
  /**
   * The cancel was sent but the run has not ended within the wait: its replica has not answered (it
   * may be dead: the cancel is flagged, so the replica that takes the run over ends it cancelled).
   */
  | { outcome: 'cancelling' };
