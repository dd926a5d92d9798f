/**
 * The RunStore port (docs/durability.md): what a run leaves behind so a restart — SIGTERM or kill -9 —
 * loses nothing a client was told. Four parts, each its own interface so a backend can keep them in
 * whatever suits it (LMDB databases here; tables in the Postgres backend of the next issue):
 *   runs         one record per run: who started it, what it asked, where it is
 *   checkpoints  the plan and each finished step's result and lineage (what a resumed run need not redo)
 *   events       the run's event log, by sequence number (replay and Last-Event-ID across restarts)
 *   approvals    requests waiting on a human, under their ids, and the decisions
 *
 * store/ is a bottom layer: it knows no engine type. Payloads (the request, a plan, an event, an approval
 * request) are plain JSON-like data the engine writes and reads back; only the fields a backend must
 * index or filter on are spelled out. Every method is async, and a resolved write is committed: it
 * survives the process being killed (docs/durability.md says what survives a power loss).
 */

/** A run is `running` until it ends; then it holds how it ended. */
export type StoredRunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'blocked';

export interface StoredRun {
  id: string;
  /** The caller that owns the run (identity/caller.ts): every read is scoped by it above the store. */
  callerId: string;
  threadId: string;
  status: StoredRunStatus;
  /** The run request as the engine received it (plain data). */
  request: unknown;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** Once finished: how it ended (the body of run.finished), so a replay can settle its result. */
  ending?: unknown;
  /**
   * Once finished: the record execution memory keeps of it (the knowledge store's RunRecord), and
   * whether the knowledge store has it yet. A start after kill -9 hands a record not yet there again.
   */
  memory?: unknown;
  remembered?: boolean;
}

export interface RunRecords {
  put(run: StoredRun): Promise<void>;
  get(id: string): Promise<StoredRun | undefined>;
  /** Runs still `running` (in progress or waiting on a human when the process stopped): what a start recovers. */
  listUnfinished(): Promise<StoredRun[]>;
  /** Finished runs, oldest `updatedAt` first (the order retention drops them in). */
  listFinished(): Promise<StoredRun[]>;
  /**
   * Notes that the knowledge store has these runs' memory records (`remembered: true`), in one write. A run
   * no longer stored (retention forgot it meanwhile) stays forgotten: nothing is written for it.
   */
  markRemembered(ids: readonly string[]): Promise<void>;
}

/** One finished step as a checkpoint keeps it: the plan step it ran and its outcome (result and lineage). */
export interface StoredStep {
  stepId: string;
  /** The plan step as planned (specialist, objective before templating, dependencies, …). */
  step: unknown;
  /** Its outcome: status, output or error, lineage. */
  outcome: unknown;
}

export interface Checkpoint {
  /** The current plan and its round; absent while the run has not planned (or never will). */
  plan?: unknown;
  planRound?: number;
  /** Every finished step, across rounds (a step id finished again replaces its earlier outcome). */
  steps: StoredStep[];
}

export interface RunCheckpoints {
  savePlan(runId: string, plan: unknown, round: number): Promise<void>;
  saveStep(runId: string, step: StoredStep): Promise<void>;
  /** Undefined when nothing was checkpointed for the run. */
  load(runId: string): Promise<Checkpoint | undefined>;
}

/** One event of a run's log; `seq` is its position (1, 2, 3, … per run). */
export interface StoredEvent {
  seq: number;
  [field: string]: unknown;
}

export interface RunEventLogs {
  /** Appends events (each with a seq above every earlier one of the run). Resolves once committed. */
  append(runId: string, events: readonly StoredEvent[]): Promise<void>;
  /** The events with seq > afterSeq, in order (at most `limit`). */
  read(runId: string, afterSeq?: number, limit?: number): Promise<StoredEvent[]>;
}

export type StoredApprovalStatus = 'pending' | 'decided';

export interface StoredApproval {
  id: string;
  runId: string;
  callerId: string;
  status: StoredApprovalStatus;
  /** The request as issued (kind, tool calls or message, createdAt, expiresAt). */
  request: unknown;
  /** Once decided: the outcome (decision, who, when). */
  outcome?: unknown;
  updatedAt: number;
}

export interface ApprovalRecords {
  /** Records a request as pending. Resolves once committed: only then may it be announced to anyone. */
  putPending(approval: Omit<StoredApproval, 'status' | 'outcome'>): Promise<void>;
  /** Records the decision of a pending request (no-op for an unknown id). */
  decide(id: string, outcome: unknown): Promise<void>;
  get(id: string): Promise<StoredApproval | undefined>;
  /** Every pending request (of every caller): what a start waits on again. */
  listPending(): Promise<StoredApproval[]>;
  listForRun(runId: string): Promise<StoredApproval[]>;
}

export interface RunStore {
  runs: RunRecords;
  checkpoints: RunCheckpoints;
  events: RunEventLogs;
  approvals: ApprovalRecords;
  /** Removes everything of a run (record, checkpoint, events, approvals): retention's cleanup. */
  forget(runId: string): Promise<void>;
  close(): Promise<void>;
}
