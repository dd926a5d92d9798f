/** Approval contract shared by the engine, the broker and every protocol adapter. */
import type { Caller } from '../identity/caller.ts';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool call awaiting a human decision. */
export interface PendingToolCall {
  toolCallId: string;
  /** Namespaced tool id, `server/tool`. */
  tool: string;
  args: unknown;
  annotations?: ToolAnnotations;
  /** Why approval is needed (e.g. "destructiveHint", "config: requireApproval"). */
  reason: string;
  inputSchema?: Record<string, unknown>;
  /** What the call would do, for a reviewer to see (a file edit as a diff, a command line). */
  preview?: ToolPreview;
}

/** A tool call's effect shown before it runs: channels that can, render it (ACP: tool-call content `diff`). */
export type ToolPreview =
  | { type: 'diff'; path: string; oldText: string | null; newText: string }
  | { type: 'command'; command: string; cwd: string };

export type ApprovalRequest =
  | {
      id: string;
      kind: 'tool';
      runId: string;
      /**
       * The caller that owns the run (set by the engine): only it (or an admin) sees and answers the
       * request. Unset: the one local caller ("anonymous"), as for a run started without a caller.
       */
      callerId?: string;
      stepId?: string;
      toolCalls: PendingToolCall[];
      createdAt: string;
      expiresAt: string;
    }
  | {
      id: string;
      kind: 'elicitation';
      runId: string;
      /**
       * The caller that owns the run (set by the engine): only it (or an admin) sees and answers the
       * request. Unset: the one local caller ("anonymous"), as for a run started without a caller.
       */
      callerId?: string;
      stepId?: string;
      /** The upstream server that asked (MCP elicitation/create) or the peer (A2A input-required). */
      source: string;
      message: string;
      requestedSchema?: Record<string, unknown>;
      createdAt: string;
      expiresAt: string;
    };

export type ToolDecision = { type: 'accept' } | { type: 'deny' } | { type: 'edit'; args: Record<string, unknown> };

export type ApprovalDecision =
  | { kind: 'tool'; decisions: Record<string, ToolDecision>; feedback?: string }
  | { kind: 'elicitation'; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** How a request ended. "timeout" and "cancelled" carry the default decision that was applied. */
export interface ApprovalOutcome {
  requestId: string;
  decision: ApprovalDecision;
  resolvedBy: 'human' | 'timeout' | 'cancelled';
  /** Who decided: an API key id, "acp", "a2a", "mcp-elicitation", or "system". */
  actor: string;
  at: string;
}

type WithoutIssued<T> = T extends unknown ? Omit<T, 'id' | 'createdAt' | 'expiresAt'> : never;
/** What a caller asks for; the broker adds the id and times. */
export type ApprovalRequestInput = WithoutIssued<ApprovalRequest>;

export type ResolveAnswer =
  | { ok: true; outcome: ApprovalOutcome }
  | { ok: false; code: 'not_found' | 'already_resolved' | 'invalid'; message: string };

/**
 * The one place every channel resolves approvals through (implemented by ApprovalBroker).
 * The engine emits approval.requested as soon as request() returns, and approval.resolved when
 * the outcome settles, so the broker itself knows no event stream.
 */
export interface ApprovalPort {
  request(input: ApprovalRequestInput, options?: { timeoutMs?: number; signal?: AbortSignal }): IssuedApproval;
  /**
   * `caller` scopes every look-up: another caller's request answers exactly like an unknown id.
   * Without a caller the look-up is unscoped (internal channels already bound to one run).
   */
  resolve(id: string, decision: ApprovalDecision, actor: string, caller?: Caller): Promise<ResolveAnswer>;
  get(id: string, caller?: Caller): ApprovalRequest | undefined;
  listPending(runId?: string, caller?: Caller): ApprovalRequest[];
  /** Settles every pending request of the run as cancelled (deny / cancel). */
  cancelRun(runId: string): void;
  /**
   * Shutdown of a run that waits on a human: its pending requests are dropped from this process
   * without a decision (they stay pending in the run store, for the next start). Its outcomes never settle.
   */
  suspendRun?(runId: string): void;
  /**
   * After a restart: the stored pending requests wait again under their ids (listed, answerable,
   * timing out at their original expiry). The resumed run's matching request() adopts each one.
   */
  restore?(requests: ApprovalRequest[], decided?: Record<string, ApprovalOutcome>): void;
  /** Replicas: the pending requests of the shared store, those of other replicas listed and answerable here. */
  syncRemote?(pending: ApprovalRequest[]): void;
}

/** What request() hands back. */
export interface IssuedApproval {
  request: ApprovalRequest;
  outcome: Promise<ApprovalOutcome>;
  /** With a run store: settles once the request is committed; announce it only then. */
  stored?: Promise<void>;
  /** True when request() adopted a request restored after a restart (it was announced before). */
  restored?: boolean;
}

/** The audit row of one approval request, handed to the broker's recorder (the knowledge store keeps it). */
export interface ApprovalRecord {
  id: string;
  runId: string;
  kind: 'tool' | 'elicitation';
  /** What was asked (tool calls with args, or the elicitation message). */
  request: unknown;
  requestedAt: string;
  /** Filled when decided. */
  decision?: unknown;
  resolvedBy?: 'human' | 'timeout' | 'cancelled';
  actor?: string;
  resolvedAt?: string;
}
